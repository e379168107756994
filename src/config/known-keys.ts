import type { z } from "zod";
import type { KnownKeys } from "../core/zod-issues.js";

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas a value at `path` may be checked against (several under a union). */
function objectsAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType[] {
  const def = defOf(schema);
  if (def.innerType !== undefined) return objectsAt(def.innerType, path);
  if (def.type === "union") return (def.options ?? []).flatMap((o) => objectsAt(o, path));
  if (path.length === 0) return def.type === "object" ? [schema] : [];
  const [head, ...rest] = path;
  if (def.type === "object") {
    const child = def.shape?.[String(head)];
    return child === undefined ? [] : objectsAt(child, rest);
  }
  if (def.type === "record" && def.valueType !== undefined) return objectsAt(def.valueType, rest);
  if (def.type === "array" && def.element !== undefined) return objectsAt(def.element, rest);
  return [];
}

/** The keys a strict object of `schema` allows at a path (did-you-mean for unknown keys). */
export function knownKeysOf(schema: z.ZodType): KnownKeys {
  return (path) => {
    const keys = objectsAt(schema, path).flatMap((o) => Object.keys(defOf(o).shape ?? {}));
    return keys.length === 0 ? undefined : [...new Set(keys)];
  };
}
