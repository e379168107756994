/**
 * The HTML report as a person sees it: rendered by headless Chromium from a file on disk (no
 * server), its summary numbers, a field diff, a conflict, and the filter by action.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/render.js";
import { hostileReport } from "../fixtures/reports/hostile.js";
import { planReport } from "../fixtures/reports/plan.js";
import { chromiumMissing, launchChromium } from "../support/chromium.js";

// Skipped, saying why, on machines without Debian's chromium.
describe.skipIf(chromiumMissing)(
  "HTML report in Chromium (if skipped: chromium not installed: apt-get install chromium)",
  () => {
    let dir: string;
    let browser: BrowserContext | undefined;
    let page: Page;
    const requests: string[] = [];
    const messages: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "report-html-"));
      browser = await launchChromium(join(dir, "profile"));
      page = await browser.newPage();
      page.on("request", (r) => requests.push(r.url()));
      page.on("console", (m) => messages.push(m.text()));
    });

    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function open(name: string, html: string): Promise<void> {
      const file = join(dir, name);
      writeFileSync(file, html);
      requests.length = 0;
      await page.goto(pathToFileURL(file).href);
    }

    const row = (action: string) => page.locator(`tr[data-action="${action}"]`);

    it("shows the summary numbers", async () => {
      await open("plan.html", renderReport(planReport(), "html"));
      const stat = (name: string) => page.locator(`[data-stat="${name}"] .n`).innerText();
      expect(await stat("created")).toBe("3");
      expect(await stat("updated")).toBe("3");
      expect(await stat("unchanged")).toBe("3");
      expect(await stat("conflicts")).toBe("1");
      expect(await stat("failed")).toBe("1");
      expect(await page.locator(".summary").innerText()).toContain("Deleted");
    });

    it("shows a field diff row with old value, new value and the side written", async () => {
      const diff = page.locator("tr.diff", { hasText: "title" }).first();
      await expect.poll(() => diff.isVisible()).toBe(true);
      const cells = await diff.locator("td").allInnerTexts();
      expect(cells).toEqual(["title", '"Checkout"', '"Checkout flow"', "→ GitHub"]);
    });

    it("shows a conflict with both values and its resolution", async () => {
      const conflict = row("conflict");
      expect(await conflict.innerText()).toContain("Pay with card");
      const cells = await conflict.locator("tr.conflict td").allInnerTexts();
      expect(cells).toEqual([
        "status",
        '"open"',
        '"closed"',
        '"in-progress"',
        "parked (conflicts resolve)",
      ]);
    });

    it("shows unmapped users and the API cost", async () => {
      expect(await page.locator("ul.unmapped").innerText()).toMatch(/carol\s+dave@example\.com/);
      const github = await page
        .locator("section.api tr", { hasText: "GitHub" })
        .locator("td")
        .allInnerTexts();
      expect(github).toEqual(["9", "0", "1", "1", "6", "9"]);
    });

    it("filters by action: only the chosen action's rows stay visible", async () => {
      await page.getByRole("button", { name: /^Create/ }).click();
      expect(await row("create").count()).toBe(3);
      for (const r of await row("create").all()) expect(await r.isVisible()).toBe(true);
      for (const action of ["update", "conflict", "failed", "adopt", "delete", "skip"])
        for (const r of await row(action).all()) expect(await r.isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: /^Create/ }).getAttribute("aria-pressed")).toBe(
        "true",
      );

      await page.getByRole("button", { name: /^All/ }).click();
      expect(await row("update").first().isVisible()).toBe(true);
    });

    it("shows what a create would write: status, labels, assignees, milestone, estimate, parent", async () => {
      const story = row("create").filter({ hasText: "Login page" }).first();
      expect(await story.locator("table.writes caption").innerText()).toBe("Would write");
      const cells = await story
        .locator("tr.write")
        .evaluateAll((rows) =>
          rows.map((r) => (r as unknown as { innerText: string }).innerText.split("\t")),
        );
      expect(cells).toEqual([
        ["status", '"open"'],
        ["labels", '"auth", "ui"'],
        ["assignees", '"alice"'],
        ["milestone", '"Sprint 4"'],
        ["estimate", "3"],
      ]);
      const task = row("create").filter({ hasText: "Write tests" }).first();
      expect(await task.locator("tr.write", { hasText: "parent" }).innerText()).toContain(
        '"Login page"',
      );
    });

    it("links an item to its tinyPM story and its issue on the target", async () => {
      const links = row("update").filter({ hasText: "Checkout flow" }).locator("a.link");
      expect(await links.allInnerTexts()).toEqual(["tinyPM story #13", "GitHub #34"]);
      expect([
        await links.nth(0).getAttribute("href"),
        await links.nth(1).getAttribute("href"),
      ]).toEqual([
        "http://tinypm.example/tinypm/userStory/show/13",
        "https://github.com/acme/shop/issues/34",
      ]);
      expect(await links.first().isVisible()).toBe(true);
      // A dry run's create links only to tinyPM: the issue does not exist yet.
      const create = row("create").filter({ hasText: "Login page" }).locator("a.link");
      expect(await create.allInnerTexts()).toEqual(["tinyPM story #12"]);
    });

    it("shows a description's word diff: the added words marked, the rest as it was", async () => {
      const diff = row("update").filter({ hasText: "Search" }).locator(".word-diff");
      expect(await diff.locator("pre").innerText()).toBe(
        "Find items by name or tag, fast, even in archived projects.",
      );
      expect(await diff.locator("ins").allInnerTexts()).toEqual([
        " by name or tag, fast, even in archived projects",
      ]);
    });

    it("fetches nothing: the file is self-contained", () => {
      expect(requests.filter((u) => !u.startsWith("file:"))).toEqual([]);
    });

    it("applies its own style and script under its Content-Security-Policy", async () => {
      // An expression in a string: the test is compiled without DOM types.
      const weight: unknown = await page.evaluate(
        `getComputedStyle(document.querySelector("[data-stat=created] .n")).fontWeight`,
      );
      expect(weight).toBe("600");
      expect(messages.filter((m) => m.includes("Content Security Policy"))).toEqual([]);
    });

    it("shows a <script> title as text and runs no script from the report's data", async () => {
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await open("hostile.html", renderReport(hostileReport(), "html"));
      expect(await row("create").innerText()).toContain(
        '<script>alert("x")</script> | `rm -rf` @octocat #12',
      );
      expect(await page.locator("h1").innerText()).toBe("Migration: <b>job</b>");
      expect(await page.locator("img").count()).toBe(0);
      expect(dialogs).toEqual([]);
    });
  },
);
