/**
 * tinyPM answers in XML, errors included. An answer that is not XML (an HTML page, JSON) comes
 * from some other server at the configured base URL — a wrong path or port — and is said so,
 * not read as a refused token or a broken document.
 */

/** What the answer is instead of XML (`an HTML page`, `application/json`), or undefined if XML. */
export function foreignAnswer(contentType: string | undefined, body: string): string | undefined {
  const head = body.trimStart().slice(0, 64).toLowerCase();
  if (head === "") return undefined; // an empty answer (201, 204) says nothing either way
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return "an HTML page";
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "") return head.startsWith("<") ? undefined : "a body that is not XML";
  if (type.includes("xml")) return undefined;
  return type === "text/html" ? "an HTML page" : type;
}
