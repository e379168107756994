import type { World } from "./world.js";

/**
 * A person creates an issue through the sandbox's REST API; its id on the target. `body`: its
 * description (GitHub's default: "Written by a person."; Jira's: none).
 */
export async function personCreates(world: World, title: string, body?: string): Promise<string> {
  const t = world.target;
  if (t.kind === "github") {
    const g = t.server;
    const res = await fetch(`${g.url}/repos/${g.owner}/${g.repo}/issues`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title, body: body ?? "Written by a person." }),
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return String(((await res.json()) as { number: number }).number);
  }
  const j = t.server;
  const res = await fetch(`${j.url}/rest/api/3/issue`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${j.email}:${j.token}`).toString("base64")}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      fields: {
        project: { key: j.projectKey },
        summary: title,
        issuetype: { name: "Story" },
        ...(body === undefined
          ? {}
          : {
              description: {
                type: "doc",
                version: 1,
                content: [{ type: "paragraph", content: [{ type: "text", text: body }] }],
              },
            }),
      },
    }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/**
 * A person reopens an issue through the sandbox's REST API, as a person does it: GitHub's state
 * to open; Jira's "Reopen" transition (back to the workflow's initial status).
 */
export async function personReopens(world: World, id: string): Promise<void> {
  const t = world.target;
  if (t.kind === "github") {
    const g = t.server;
    const res = await fetch(`${g.url}/repos/${g.owner}/${g.repo}/issues/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${g.token}`, "content-type": "application/json" },
      body: JSON.stringify({ state: "open" }),
    });
    if (res.status !== 200) throw new Error(`reopen: ${res.status} ${await res.text()}`);
    return;
  }
  const j = t.server;
  const headers = {
    authorization: `Basic ${Buffer.from(`${j.email}:${j.token}`).toString("base64")}`,
    "content-type": "application/json",
  };
  const url = `${j.url}/rest/api/3/issue/${id}/transitions`;
  const listed = (await (await fetch(url, { headers })).json()) as {
    transitions: { id: string; name: string }[];
  };
  const reopen = listed.transitions.find((x) => x.name === "Reopen");
  if (reopen === undefined) throw new Error(`reopen: no Reopen transition on ${id}`);
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ transition: { id: reopen.id } }),
  });
  if (res.status !== 204) throw new Error(`reopen: ${res.status} ${await res.text()}`);
}
