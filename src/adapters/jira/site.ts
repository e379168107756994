import { ConfigError } from "../../core/errors.js";
import type { JiraClient, JiraEndpoints } from "./client.js";
import { rawBoardConfig, rawBoards, rawFieldList, type RawField } from "./schema.js";

/** What the adapter discovers about the site once: custom field ids and the board. */
export interface SiteInfo {
  readonly storyPointsField: string | undefined;
  readonly sprintField: string;
  /**
   * The two fields' names on this site, as Data Center's changelog items name a field (they
   * carry no id): a site may call its points field "Estimate" or its sprint field otherwise.
   */
  readonly storyPointsName?: string | undefined;
  readonly sprintName?: string | undefined;
  readonly boardId: number | undefined;
}

export interface SiteOptions {
  readonly projectKey: string;
  readonly boardId?: number | undefined;
  readonly storyPointsField?: string | undefined;
}

const SPRINT_TYPE = "com.pyxis.greenhopper.jira:gh-sprint";
const POINTS_TYPES = new Set([
  "com.pyxis.greenhopper.jira:jsw-story-points",
  "com.atlassian.jira.plugin.system.customfieldtypes:float",
]);

/** The story-points field by name and type, when no board says which field estimates. */
function findStoryPointsField(fields: readonly RawField[]): string | undefined {
  const numeric = fields.filter((f) => f.schema?.type === "number");
  const byName = (re: RegExp) => numeric.find((f) => re.test(f.name));
  return (
    byName(/^story points?$/i)?.id ??
    byName(/^story point estimate$/i)?.id ??
    numeric.find((f) => POINTS_TYPES.has(f.schema?.custom ?? "") && /point/i.test(f.name))?.id
  );
}

function findSprintField(fields: readonly RawField[]): string | undefined {
  return (
    fields.find((f) => f.schema?.custom === SPRINT_TYPE)?.id ??
    fields.find((f) => f.name === "Sprint")?.id
  );
}

/** Discovers the site once (3 reads) and caches it. */
export function createSiteLoader(
  client: JiraClient,
  api: JiraEndpoints,
  options: SiteOptions,
): () => Promise<SiteInfo> {
  let pending: Promise<SiteInfo> | undefined;
  const load = async (): Promise<SiteInfo> => {
    const fields = client.parse(rawFieldList, await api.fields(), {
      operation: "GET /rest/api/3/field",
    });
    const boardId = options.boardId ?? (await findBoard(client, api, options.projectKey));
    let estimation: string | undefined;
    if (boardId !== undefined && options.storyPointsField === undefined) {
      const config = client.parse(rawBoardConfig, await api.boardConfiguration(boardId), {
        operation: "GET /rest/agile/1.0/board/{id}/configuration",
        id: String(boardId),
      });
      estimation = config.estimation?.field?.fieldId;
    }
    const sprintField = findSprintField(fields);
    if (sprintField === undefined) {
      throw new ConfigError(
        `Jira site has no Sprint field (${SPRINT_TYPE}); is Jira Software enabled?`,
        {
          hint: "Use a Jira Software (scrum) project.",
        },
      );
    }
    const storyPointsField = options.storyPointsField ?? estimation ?? findStoryPointsField(fields);
    const nameOf = (id: string | undefined): string | undefined =>
      id === undefined ? undefined : fields.find((f) => f.id === id)?.name;
    return {
      storyPointsField,
      sprintField,
      storyPointsName: nameOf(storyPointsField),
      sprintName: nameOf(sprintField),
      boardId,
    };
  };
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

async function findBoard(
  client: JiraClient,
  api: JiraEndpoints,
  projectKey: string,
): Promise<number | undefined> {
  const boards = client.parse(rawBoards, await api.boards(projectKey), {
    operation: "GET /rest/agile/1.0/board",
  });
  return boards.values[0]?.id;
}
