/**
 * The Jira adapter against the Data Center sandbox, over real HTTP: a refused personal access
 * token (served as anonymous with 200 and nothing in it) is an authentication error, never an
 * empty project; a good one lists users by username.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTarget } from "../../src/adapters/registry.js";
import { AuthError } from "../../src/core/errors.js";
import { startJiraSandbox, type JiraSandbox } from "../../src/sandboxes/jira/index.js";
import { jiraSandboxConnection } from "../support/sandbox-connection.js";

describe("Jira adapter on Data Center", () => {
  let sandbox: JiraSandbox;
  beforeAll(async () => {
    sandbox = await startJiraSandbox({ deployment: "datacenter" });
  });
  afterAll(() => sandbox.close());

  it("fails a read with a refused PAT as an authentication error, even on a 200 served as anonymous", async () => {
    const tracker = createTarget({ ...jiraSandboxConnection(sandbox), token: "not-the-pat" });
    try {
      const read = async (): Promise<number> => {
        let n = 0;
        for await (const _item of tracker.list({ kind: "story" })) n++;
        return n;
      };
      await expect(read()).rejects.toBeInstanceOf(AuthError);
      // The field list answered 200 to the refused token (as anonymous): only its header told.
      expect(sandbox.stats().byStatus).toMatchObject({ "200": 1 });
    } finally {
      await tracker.close();
    }
  });

  it("lists the project's users by username", async () => {
    const tracker = createTarget(jiraSandboxConnection(sandbox));
    try {
      const users = await tracker.listUsers();
      expect(users.map((u) => u.id)).toEqual(expect.arrayContaining(["alice", "bob", "sandbox"]));
    } finally {
      await tracker.close();
    }
  });

  it("names what rewriting a wiki block would lose: the constructs ADF kept as text", async () => {
    const wiki = [
      "Plain words stay.",
      "",
      "Ship it {color:red}today{color}, see ??the handbook??.",
      "",
      "!diagram.png!",
      "",
      "{noformat}",
      "raw {code} here",
      "{noformat}",
    ].join("\n");
    const res = await fetch(`${sandbox.url}/rest/api/2/issue`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        fields: {
          project: { key: "WID" },
          issuetype: { name: "Story" },
          summary: "Wiki losses",
          description: wiki,
        },
      }),
    });
    const { key } = (await res.json()) as { key: string };
    const tracker = createTarget(jiraSandboxConnection(sandbox));
    try {
      const item = await tracker.get({ kind: "story", id: key });
      const lost = item?.richDescription?.blocks.map((b) => b.lost);
      expect(lost).toEqual([
        [],
        ["text colour", "citation"],
        expect.arrayContaining(["image"]),
        [],
      ]);
    } finally {
      await tracker.close();
    }
  });
});
