import type { XmlNode, XmlValue } from "./wire.js";

/** The listings whose elements may stand in for a detail read. */
type ListedKind = "story" | "task";

/**
 * Fields a detail of each kind always carries when the server has them at all (enums, and the
 * list wrappers, which are written even when empty). A listed element of a complete listing that
 * lacks one of those its probe's detail had is not complete: its detail is read.
 */
const ALWAYS: Readonly<Record<ListedKind, readonly string[]>> = {
  story: ["name", "priority", "color", "acceptanceStatus", "tags", "comments"],
  task: ["name", "status", "assignedUsers", "comments"],
};

/** Whether two parsed XML values are the same (children compared by name, lists in order). */
export function sameXml(a: XmlValue | undefined, b: XmlValue | undefined): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a === undefined || b === undefined) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameXml(x, b[i]));
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameXml(a[k], b[k]));
}

/** Whether `listed` carries every child of `detail` with the same value (it may carry more). */
export function coversDetail(listed: XmlNode, detail: XmlNode): boolean {
  return Object.keys(detail).every((k) => sameXml(listed[k], detail[k]));
}

type Verdict =
  { readonly complete: false } | { readonly complete: true; readonly required: readonly string[] };

/** What was decided about one kind's listings during a read, for reports and tests. */
type ListVerdict = "complete" | "summary" | "unknown";

/**
 * Decides, once per read and per kind, whether listings carry complete elements: the first
 * listed element is compared with its detail (which is read anyway). While a kind is complete,
 * its listed elements are used as they are; the first one that lacks a field makes the kind
 * incomplete at once, and from then on every element's detail is read.
 */
export interface ListedDetails {
  /**
   * The detail of a listed element: `fromListed(listed)` when the kind's listings are complete
   * and the element is whole and valid, else `read()` (`undefined`: the item is gone).
   */
  detail<T extends { readonly node: XmlNode }>(
    kind: ListedKind,
    listed: XmlNode,
    read: () => Promise<T | undefined>,
    fromListed: (node: XmlNode) => T | undefined,
  ): Promise<T | undefined>;
  verdict(kind: ListedKind): ListVerdict;
}

export function createListedDetails(): ListedDetails {
  const verdicts = new Map<ListedKind, Promise<Verdict | undefined>>();
  const settled = new Map<ListedKind, Verdict>();
  const judge = (kind: ListedKind, listed: XmlNode, detail: XmlNode): Verdict =>
    coversDetail(listed, detail)
      ? { complete: true, required: ALWAYS[kind].filter((k) => detail[k] !== undefined) }
      : { complete: false };
  const fallBack = (kind: ListedKind): void => {
    const v: Verdict = { complete: false };
    settled.set(kind, v);
    verdicts.set(kind, Promise.resolve(v));
  };
  return {
    async detail(kind, listed, read, fromListed) {
      for (;;) {
        const pending = verdicts.get(kind);
        if (pending === undefined) {
          // This element is the probe: its detail is read and compared with the listing.
          const doc = read();
          const verdict = doc.then(
            (d) => (d === undefined ? undefined : judge(kind, listed, d.node)),
            () => undefined,
          );
          verdicts.set(kind, verdict);
          void verdict.then((v) => {
            if (v === undefined) verdicts.delete(kind);
            else if (!settled.has(kind)) settled.set(kind, v);
          });
          return doc;
        }
        const v = await pending;
        if (v === undefined) {
          // The probe's item vanished (or its read failed): the next element probes again.
          if (verdicts.get(kind) === pending) verdicts.delete(kind);
          continue;
        }
        if (!v.complete) return read();
        if (v.required.every((k) => listed[k] !== undefined)) {
          const whole = fromListed(listed);
          if (whole !== undefined) return whole;
        }
        fallBack(kind);
        return read();
      }
    },
    verdict(kind) {
      const v = settled.get(kind);
      return v === undefined ? "unknown" : v.complete ? "complete" : "summary";
    },
  };
}
