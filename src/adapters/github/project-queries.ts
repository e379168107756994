/** The GraphQL documents of the Projects (v2) board (GitHub's schema; see docs/sandboxes.md). */

export const FIELDS = `fields(first: 50) { nodes {
  ... on ProjectV2FieldCommon { id name dataType }
  ... on ProjectV2SingleSelectField { options { id name color description } }
  ... on ProjectV2IterationField { configuration { duration startDay
    iterations { id title startDate duration } completedIterations { id title startDate duration } } } } }`;

const PROJECT = `id number title ${FIELDS}`;

/** A user's or an organization's project by number, with its fields: one request. */
export const PROJECT_BY_NUMBER = `query($owner: String!, $number: Int!) {
  repositoryOwner(login: $owner) { id ... on ProjectV2Owner { projectV2(number: $number) { ${PROJECT} } } } }`;

/** The owner's projects matching a title (then compared exactly). */
export const PROJECTS_BY_TITLE = `query($owner: String!, $title: String!) {
  repositoryOwner(login: $owner) { id ... on ProjectV2Owner {
    projectsV2(first: 20, query: $title) { nodes { ${PROJECT} } } } } }`;

/** The owner's kind (user or organization): no project scope needed. */
export const OWNER_KIND = `query($owner: String!) { repositoryOwner(login: $owner) { __typename login } }`;

/** `check`'s read of the project: may the token's user edit it, and its fields. */
export const PROBE_BY_NUMBER = `query($owner: String!, $number: Int!) {
  repositoryOwner(login: $owner) { ... on ProjectV2Owner { projectV2(number: $number) {
    ${PROJECT} viewerCanUpdate } } } }`;

export const PROBE_BY_TITLE = `query($owner: String!, $title: String!) {
  repositoryOwner(login: $owner) { ... on ProjectV2Owner {
    projectsV2(first: 20, query: $title) { nodes { ${PROJECT} viewerCanUpdate } } } } }`;

export const CREATE_PROJECT = `mutation($owner: ID!, $title: String!) {
  createProjectV2(input: { ownerId: $owner, title: $title }) { projectV2 { ${PROJECT} } } }`;

export const PROJECT_FIELDS = `query($project: ID!) { node(id: $project) { ... on ProjectV2 { ${FIELDS} } } }`;

/** One page of 100 items with their values: 1 point (1 + 100 nested requests / 100). */
export const ITEMS_PAGE = `query($project: ID!, $cursor: String) { node(id: $project) { ... on ProjectV2 {
  items(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor } nodes { id
    content { ... on Issue { id number } }
    fieldValues(first: 20) { nodes { __typename
      ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { id } } }
      ... on ProjectV2ItemFieldSingleSelectValue { optionId name field { ... on ProjectV2FieldCommon { id } } }
      ... on ProjectV2ItemFieldIterationValue { iterationId title startDate duration field { ... on ProjectV2FieldCommon { id } } } } } } } } } }`;

/** One item's values, read right before an update writes them: 1 point. */
export const ITEM_VALUES = `query($item: ID!) { node(id: $item) { ... on ProjectV2Item { id
  content { ... on Issue { id number } }
  fieldValues(first: 20) { nodes { __typename
    ... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { id } } }
    ... on ProjectV2ItemFieldSingleSelectValue { optionId name field { ... on ProjectV2FieldCommon { id } } }
    ... on ProjectV2ItemFieldIterationValue { iterationId title startDate duration field { ... on ProjectV2FieldCommon { id } } } } } } } }`;

export const CREATE_FIELD = `mutation($input: CreateProjectV2FieldInput!) {
  createProjectV2Field(input: $input) { projectV2Field { ... on ProjectV2FieldCommon { id } } } }`;

export const UPDATE_FIELD = `mutation($input: UpdateProjectV2FieldInput!) {
  updateProjectV2Field(input: $input) { projectV2Field { ... on ProjectV2FieldCommon { id } } } }`;

export const ADD_ITEM = `mutation($project: ID!, $content: ID!) {
  addProjectV2ItemById(input: { projectId: $project, contentId: $content }) { item { id } } }`;

/** One value write as an aliased mutation (several share one request). */
export interface ValueWrite {
  readonly itemId: string;
  readonly fieldId: string;
  /** `undefined`: clear the value. */
  readonly value:
    | { readonly number: number }
    | { readonly singleSelectOptionId: string }
    | { readonly iterationId: string }
    | undefined;
}

/** Aliased `updateProjectV2ItemFieldValue` / `clearProjectV2ItemFieldValue` mutations, one request. */
export function valueWrites(
  projectId: string,
  writes: readonly ValueWrite[],
): {
  query: string;
  variables: Record<string, unknown>;
} {
  const variables: Record<string, unknown> = {};
  const parts = writes.map((w, i) => {
    const base = { projectId, itemId: w.itemId, fieldId: w.fieldId };
    if (w.value === undefined) {
      variables[`c${i}`] = base;
      return `w${i}: clearProjectV2ItemFieldValue(input: $c${i}) { clientMutationId }`;
    }
    variables[`u${i}`] = { ...base, value: w.value };
    return `w${i}: updateProjectV2ItemFieldValue(input: $u${i}) { clientMutationId }`;
  });
  const decl = writes
    .map((w, i) =>
      w.value === undefined
        ? `$c${i}: ClearProjectV2ItemFieldValueInput!`
        : `$u${i}: UpdateProjectV2ItemFieldValueInput!`,
    )
    .join(", ");
  return { query: `mutation(${decl}) { ${parts.join("\n")} }`, variables };
}
