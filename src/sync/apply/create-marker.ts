import { valueDigest } from "../../core/identity.js";
import type {
  ItemKind,
  Marker,
  WorkItem,
  WorkItemDraft,
  WorkItemFields,
} from "../../core/model.js";
import { call, type EngineContext } from "../context.js";
import { withHeldDigests } from "../plan/marker.js";
import type { PlanAction } from "../plan/plan-types.js";
import { type Snapshot, sameJson, targetSnapshot } from "../plan/snapshot.js";

const answerKey = (kind: ItemKind, field: string, sent: string): string =>
  `${kind}|${field}|${sent}`;

/**
 * The marker a target create sends: the plan's, with target digests wherever the target will
 * hold another value than tinyPM's — its own default for a field the draft leaves out (create
 * metadata: Jira's default priority), or what it answered for the same value earlier in the run
 * (a normalisation) — so that the block is right from the create on and needs no second write.
 */
export async function expectedMarker(
  ctx: EngineContext,
  draft: WorkItemDraft,
): Promise<Marker | undefined> {
  const marker = draft.marker;
  if (marker?.base === undefined) return marker;
  const held: Record<string, string> = {};
  const defaults = await createDefaults(ctx, draft.kind);
  const missing = Object.entries(defaults).filter(
    ([name]) => draft[name as keyof WorkItemFields] === undefined,
  );
  if (missing.length > 0) {
    const plain = targetSnapshot(ctx.mapping, asItem(ctx, draft));
    const filled = targetSnapshot(
      ctx.mapping,
      asItem(ctx, { ...draft, ...Object.fromEntries(missing) }),
    );
    for (const name of Object.keys(marker.base))
      if (!sameJson(plain.fields[name], filled.fields[name]))
        held[name] = valueDigest(filled.fields[name]);
  }
  const { answers } = ctx.memory;
  for (const [name, sent] of Object.entries(marker.base)) {
    const answered = answers.get(answerKey(draft.kind, name, sent));
    if (answered !== undefined) held[name] = answered;
  }
  return withHeldDigests(marker, held);
}

/**
 * Starts the create-defaults read of every kind the plan creates on the target, at once and
 * without waiting: under latency each is a request the first create of its kind would otherwise
 * wait for alone (the story's before the first bulk create, the task's before the first
 * sub-task's), while the same reads can share the gate's slots with the sprints being made.
 */
export function readCreateDefaultsAhead(ctx: EngineContext, actions: readonly PlanAction[]): void {
  const kinds = new Set<ItemKind>();
  for (const a of actions)
    // A kind already found needs no look at another draft (each is made when read).
    if (
      a.type === "create" &&
      a.toSide === "target" &&
      !kinds.has(a.kind) &&
      a.draft.marker?.base !== undefined
    )
      kinds.add(a.kind);
  for (const kind of kinds) void createDefaults(ctx, kind);
}

/**
 * After a create: notes what the target holds (`held`, tinyPM terms) for each value it was sent,
 * for the run's later creates of the kind. Returns the fields whose value the marker sent got
 * wrong (none when the expectation was right).
 */
export function learnFromCreate(
  ctx: EngineContext,
  kind: ItemKind,
  sent: Marker,
  held: Snapshot,
): string[] {
  const { answers } = ctx.memory;
  const wrong: string[] = [];
  for (const [name, digest] of Object.entries(sent.base ?? {})) {
    const h = valueDigest(held.fields[name]);
    answers.set(answerKey(kind, name, digest), h);
    if (h !== (sent.target?.[name] ?? digest)) wrong.push(name);
  }
  return wrong;
}

/**
 * The target's create defaults for `kind`, read once per run through the target's lane (kept
 * in the run's memory, with what the target answered for each value: run-memory.ts). A
 * failed read leaves the expectation to what the run learns from its creates' answers: the
 * first creates of the kind then write their block once more.
 */
function createDefaults(ctx: EngineContext, kind: ItemKind): Promise<Partial<WorkItemFields>> {
  const read = ctx.target.createDefaults?.bind(ctx.target);
  if (read === undefined) return Promise.resolve({});
  const defaults = ctx.memory.createDefaults;
  let pending = defaults.get(kind);
  if (pending === undefined) {
    pending = call(ctx, "target", {
      name: `read the ${kind} create defaults`,
      kind: "read",
      run: () => read(kind),
    }).catch(() => ({}));
    defaults.set(kind, pending);
  }
  return pending;
}

function asItem(ctx: EngineContext, draft: WorkItemDraft): WorkItem {
  return {
    ...draft,
    system: ctx.targetSystem,
    id: "",
    comments: [],
    timeEntries: [],
    metadata: draft.metadata ?? {},
  };
}
