import { buildSchema, type GraphQLSchema } from "graphql";

/**
 * The subset of GitHub's public GraphQL schema the sandbox serves: owners, repositories, issues by
 * node id, and Projects (v2) with fields, items, values and the mutations a sync needs, and
 * `deleteIssue` (what `undo` deletes an issue with: REST has no delete). Names,
 * nullability and argument types follow GitHub's `schema.docs.graphql`; `test/contract` checks
 * every type and field here against `@octokit/graphql-schema` (a 2025-02 snapshot), except the
 * option input's `id`, which GitHub added later.
 */
export const PROJECTS_SDL = /* GraphQL */ `
  scalar BigInt
  scalar Date
  scalar DateTime
  scalar URI

  interface Node {
    id: ID!
  }

  type PageInfo {
    endCursor: String
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
  }

  type RateLimit {
    cost: Int!
    limit: Int!
    nodeCount: Int!
    remaining: Int!
    resetAt: DateTime!
    used: Int!
  }

  interface RepositoryOwner {
    id: ID!
    login: String!
    repository(followRenames: Boolean = true, name: String!): Repository
  }

  interface Actor {
    login: String!
    url: URI!
  }

  type UserConnection {
    nodes: [User]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type Label implements Node {
    id: ID!
    name: String!
    color: String!
    description: String
    isDefault: Boolean!
  }

  type LabelConnection {
    nodes: [Label]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  enum MilestoneState {
    CLOSED
    OPEN
  }

  type Milestone implements Node {
    id: ID!
    number: Int!
    title: String!
    description: String
    state: MilestoneState!
    closed: Boolean!
    closedAt: DateTime
    dueOn: DateTime
  }

  interface ProjectV2Owner {
    id: ID!
    projectV2(number: Int!): ProjectV2
    projectsV2(
      after: String
      before: String
      first: Int
      last: Int
      query: String
    ): ProjectV2Connection!
  }

  type User implements Actor & Node & ProjectV2Owner & RepositoryOwner {
    id: ID!
    login: String!
    name: String
    databaseId: Int
    url: URI!
    repository(followRenames: Boolean = true, name: String!): Repository
    projectV2(number: Int!): ProjectV2
    projectsV2(
      after: String
      before: String
      first: Int
      last: Int
      query: String
    ): ProjectV2Connection!
  }

  type Organization implements Actor & Node & ProjectV2Owner & RepositoryOwner {
    id: ID!
    login: String!
    name: String
    databaseId: Int
    url: URI!
    repository(followRenames: Boolean = true, name: String!): Repository
    projectV2(number: Int!): ProjectV2
    projectsV2(
      after: String
      before: String
      first: Int
      last: Int
      query: String
    ): ProjectV2Connection!
  }

  type Repository implements Node {
    id: ID!
    name: String!
    nameWithOwner: String!
    owner: RepositoryOwner!
    issue(number: Int!): Issue
    issueOrPullRequest(number: Int!): IssueOrPullRequest
  }

  union IssueOrPullRequest = Issue | PullRequest

  enum IssueState {
    CLOSED
    OPEN
  }

  type Issue implements Node {
    id: ID!
    number: Int!
    title: String!
    state: IssueState!
    url: URI!
    databaseId: Int
    repository: Repository!
    createdAt: DateTime!
    author: Actor
    closed: Boolean!
    closedAt: DateTime
    milestone: Milestone
    assignees(after: String, before: String, first: Int, last: Int): UserConnection!
    labels(after: String, before: String, first: Int, last: Int): LabelConnection
    projectItems(
      after: String
      before: String
      first: Int
      includeArchived: Boolean = true
      last: Int
    ): ProjectV2ItemConnection!
  }

  type DraftIssue implements Node {
    id: ID!
    title: String!
    body: String!
    createdAt: DateTime!
    updatedAt: DateTime!
    creator: Actor
    assignees(after: String, before: String, first: Int, last: Int): UserConnection!
  }

  """
  Declared for clients that select it in an item's content (GitHub's union has it); the sandbox
  has no pull requests, so no item's content is one.
  """
  type PullRequest implements Node {
    id: ID!
    number: Int!
    title: String!
    url: URI!
    databaseId: Int
    repository: Repository!
    createdAt: DateTime!
    author: Actor
    closed: Boolean!
    closedAt: DateTime
    merged: Boolean!
    milestone: Milestone
    assignees(after: String, before: String, first: Int, last: Int): UserConnection!
    labels(after: String, before: String, first: Int, last: Int): LabelConnection
    projectItems(
      after: String
      before: String
      first: Int
      includeArchived: Boolean = true
      last: Int
    ): ProjectV2ItemConnection!
  }

  union ProjectV2ItemContent = DraftIssue | Issue | PullRequest

  type ProjectV2Connection {
    nodes: [ProjectV2]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type ProjectV2 implements Node {
    id: ID!
    number: Int!
    title: String!
    closed: Boolean!
    url: URI!
    databaseId: Int
    owner: ProjectV2Owner!
    field(name: String!): ProjectV2FieldConfiguration
    fields(
      after: String
      before: String
      first: Int
      last: Int
    ): ProjectV2FieldConfigurationConnection!
    items(after: String, before: String, first: Int, last: Int): ProjectV2ItemConnection!
    viewerCanUpdate: Boolean!
  }

  enum ProjectV2FieldType {
    ASSIGNEES
    DATE
    ITERATION
    LABELS
    LINKED_PULL_REQUESTS
    MILESTONE
    NUMBER
    PARENT_ISSUE
    REPOSITORY
    REVIEWERS
    SINGLE_SELECT
    SUB_ISSUES_PROGRESS
    TEXT
    TITLE
    TRACKED_BY
    TRACKS
  }

  enum ProjectV2CustomFieldType {
    DATE
    ITERATION
    NUMBER
    SINGLE_SELECT
    TEXT
  }

  enum ProjectV2SingleSelectFieldOptionColor {
    BLUE
    GRAY
    GREEN
    ORANGE
    PINK
    PURPLE
    RED
    YELLOW
  }

  interface ProjectV2FieldCommon {
    id: ID!
    name: String!
    dataType: ProjectV2FieldType!
    databaseId: Int
    project: ProjectV2!
  }

  union ProjectV2FieldConfiguration =
    | ProjectV2Field
    | ProjectV2IterationField
    | ProjectV2SingleSelectField

  type ProjectV2FieldConfigurationConnection {
    nodes: [ProjectV2FieldConfiguration]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type ProjectV2Field implements Node & ProjectV2FieldCommon {
    id: ID!
    name: String!
    dataType: ProjectV2FieldType!
    databaseId: Int
    project: ProjectV2!
  }

  type ProjectV2SingleSelectFieldOption {
    id: String!
    name: String!
    nameHTML: String!
    color: ProjectV2SingleSelectFieldOptionColor!
    description: String!
    descriptionHTML: String!
  }

  type ProjectV2SingleSelectField implements Node & ProjectV2FieldCommon {
    id: ID!
    name: String!
    dataType: ProjectV2FieldType!
    databaseId: Int
    project: ProjectV2!
    options(names: [String!]): [ProjectV2SingleSelectFieldOption!]!
  }

  type ProjectV2IterationFieldIteration {
    id: String!
    title: String!
    titleHTML: String!
    startDate: Date!
    duration: Int!
  }

  type ProjectV2IterationFieldConfiguration {
    duration: Int!
    startDay: Int!
    iterations: [ProjectV2IterationFieldIteration!]!
    completedIterations: [ProjectV2IterationFieldIteration!]!
  }

  type ProjectV2IterationField implements Node & ProjectV2FieldCommon {
    id: ID!
    name: String!
    dataType: ProjectV2FieldType!
    databaseId: Int
    project: ProjectV2!
    configuration: ProjectV2IterationFieldConfiguration!
  }

  enum ProjectV2ItemType {
    DRAFT_ISSUE
    ISSUE
    PULL_REQUEST
    REDACTED
  }

  type ProjectV2ItemConnection {
    nodes: [ProjectV2Item]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type ProjectV2Item implements Node {
    id: ID!
    type: ProjectV2ItemType!
    isArchived: Boolean!
    databaseId: Int
    fullDatabaseId: BigInt
    createdAt: DateTime!
    updatedAt: DateTime!
    content: ProjectV2ItemContent
    project: ProjectV2!
    fieldValueByName(name: String!): ProjectV2ItemFieldValue
    fieldValues(
      after: String
      before: String
      first: Int
      last: Int
    ): ProjectV2ItemFieldValueConnection!
  }

  interface ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
  }

  type ProjectV2ItemFieldTextValue implements Node & ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
    text: String
  }

  type ProjectV2ItemFieldNumberValue implements Node & ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
    number: Float
  }

  type ProjectV2ItemFieldDateValue implements Node & ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
    date: Date
  }

  type ProjectV2ItemFieldSingleSelectValue implements Node & ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
    optionId: String
    name: String
    color: ProjectV2SingleSelectFieldOptionColor!
  }

  type ProjectV2ItemFieldIterationValue implements Node & ProjectV2ItemFieldValueCommon {
    id: ID!
    field: ProjectV2FieldConfiguration!
    item: ProjectV2Item!
    databaseId: Int
    iterationId: String!
    title: String!
    startDate: Date!
    duration: Int!
  }

  union ProjectV2ItemFieldValue =
    | ProjectV2ItemFieldDateValue
    | ProjectV2ItemFieldIterationValue
    | ProjectV2ItemFieldNumberValue
    | ProjectV2ItemFieldSingleSelectValue
    | ProjectV2ItemFieldTextValue

  type ProjectV2ItemFieldValueConnection {
    nodes: [ProjectV2ItemFieldValue]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type Query {
    node(id: ID!): Node
    nodes(ids: [ID!]!): [Node]!
    user(login: String!): User
    organization(login: String!): Organization
    repositoryOwner(login: String!): RepositoryOwner
    repository(followRenames: Boolean = true, name: String!, owner: String!): Repository
    viewer: User!
    rateLimit(dryRun: Boolean = false): RateLimit
  }

  input ProjectV2FieldValue {
    date: Date
    iterationId: String
    number: Float
    singleSelectOptionId: String
    text: String
  }

  input ProjectV2Iteration {
    duration: Int!
    startDate: Date!
    title: String!
  }

  input ProjectV2IterationFieldConfigurationInput {
    duration: Int!
    iterations: [ProjectV2Iteration!]!
    startDate: Date!
  }

  input ProjectV2SingleSelectFieldOptionInput {
    color: ProjectV2SingleSelectFieldOptionColor!
    description: String!
    id: String
    name: String!
  }

  input CreateProjectV2Input {
    clientMutationId: String
    ownerId: ID!
    repositoryId: ID
    teamId: ID
    title: String!
  }
  type CreateProjectV2Payload {
    clientMutationId: String
    projectV2: ProjectV2
  }

  input AddProjectV2ItemByIdInput {
    clientMutationId: String
    contentId: ID!
    projectId: ID!
  }
  type AddProjectV2ItemByIdPayload {
    clientMutationId: String
    item: ProjectV2Item
  }

  input UpdateProjectV2ItemFieldValueInput {
    clientMutationId: String
    fieldId: ID!
    itemId: ID!
    projectId: ID!
    value: ProjectV2FieldValue!
  }
  type UpdateProjectV2ItemFieldValuePayload {
    clientMutationId: String
    projectV2Item: ProjectV2Item
  }

  input ClearProjectV2ItemFieldValueInput {
    clientMutationId: String
    fieldId: ID!
    itemId: ID!
    projectId: ID!
  }
  type ClearProjectV2ItemFieldValuePayload {
    clientMutationId: String
    projectV2Item: ProjectV2Item
  }

  input DeleteProjectV2ItemInput {
    clientMutationId: String
    itemId: ID!
    projectId: ID!
  }
  type DeleteProjectV2ItemPayload {
    clientMutationId: String
    deletedItemId: ID
  }

  input CreateProjectV2FieldInput {
    clientMutationId: String
    dataType: ProjectV2CustomFieldType!
    iterationConfiguration: ProjectV2IterationFieldConfigurationInput
    name: String!
    projectId: ID!
    singleSelectOptions: [ProjectV2SingleSelectFieldOptionInput!]
  }
  type CreateProjectV2FieldPayload {
    clientMutationId: String
    projectV2Field: ProjectV2FieldConfiguration
  }

  input UpdateProjectV2FieldInput {
    clientMutationId: String
    fieldId: ID!
    iterationConfiguration: ProjectV2IterationFieldConfigurationInput
    name: String
    singleSelectOptions: [ProjectV2SingleSelectFieldOptionInput!]
  }
  type UpdateProjectV2FieldPayload {
    clientMutationId: String
    projectV2Field: ProjectV2FieldConfiguration
  }

  input DeleteIssueInput {
    clientMutationId: String
    issueId: ID!
  }
  type DeleteIssuePayload {
    clientMutationId: String
    repository: Repository
  }

  type Mutation {
    addProjectV2ItemById(input: AddProjectV2ItemByIdInput!): AddProjectV2ItemByIdPayload
    clearProjectV2ItemFieldValue(
      input: ClearProjectV2ItemFieldValueInput!
    ): ClearProjectV2ItemFieldValuePayload
    createProjectV2(input: CreateProjectV2Input!): CreateProjectV2Payload
    createProjectV2Field(input: CreateProjectV2FieldInput!): CreateProjectV2FieldPayload
    deleteIssue(input: DeleteIssueInput!): DeleteIssuePayload
    deleteProjectV2Item(input: DeleteProjectV2ItemInput!): DeleteProjectV2ItemPayload
    updateProjectV2Field(input: UpdateProjectV2FieldInput!): UpdateProjectV2FieldPayload
    updateProjectV2ItemFieldValue(
      input: UpdateProjectV2ItemFieldValueInput!
    ): UpdateProjectV2ItemFieldValuePayload
  }
`;

let built: GraphQLSchema | undefined;

/** The executable schema (built once). */
export function projectsSchema(): GraphQLSchema {
  built ??= buildSchema(PROJECTS_SDL);
  return built;
}
