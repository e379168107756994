import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  escapeMarkdown,
  escapeTerminal,
  markdownCode,
  neutraliseMentions,
} from "./escape.js";

const ZWSP = "\u200B";

describe("escapeHtml", () => {
  it("escapes tags, ampersands and both quotes", () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
      "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;",
    );
  });
});

describe("neutraliseMentions", () => {
  it("breaks @people, @org/teams and #123 references with a zero-width space", () => {
    expect(neutraliseMentions("@alice ask @acme/devs about #12")).toBe(
      `@${ZWSP}alice ask @${ZWSP}acme/devs about #${ZWSP}12`,
    );
  });

  it("leaves e-mail addresses, lone signs and #words alone", () => {
    expect(neutraliseMentions("mail dave@example.com @ 5 C# #fff")).toBe(
      "mail dave@example.com @ 5 C# #fff",
    );
  });
});

describe("escapeMarkdown", () => {
  it("escapes table pipes, backticks, emphasis, links and HTML", () => {
    expect(escapeMarkdown("a | `b` *c* _d_ [e](f) <i>g</i> &amp;")).toBe(
      "a \\| \\`b\\` \\*c\\* \\_d\\_ \\[e\\](f) \\<i\\>g\\</i\\> \\&amp;",
    );
  });

  it("keeps a title on one line and drops control characters", () => {
    expect(escapeMarkdown("one\ntwo\r\nthree\u0007")).toBe("one two three");
  });

  it("neutralises mentions", () => {
    expect(escapeMarkdown("ping @octocat")).toBe(`ping @${ZWSP}octocat`);
  });
});

describe("markdownCode", () => {
  it("fences text containing backticks with a longer fence", () => {
    expect(markdownCode("a`b")).toBe("``a`b``");
    expect(markdownCode("`x`")).toBe("`` `x` ``");
  });

  it("escapes pipes for tables", () => {
    expect(markdownCode("a|b")).toBe("`a\\|b`");
  });
});

describe("escapeTerminal", () => {
  it("shows escape sequences instead of obeying them", () => {
    expect(escapeTerminal("\u001b[31mred\u001b[0m\u0007")).toBe("\\u001b[31mred\\u001b[0m\\u0007");
  });

  it("shows bidirectional overrides instead of letting them reorder the line", () => {
    expect(escapeTerminal("abc\u202edef")).toBe("abc\\u202edef");
  });

  it("turns tabs and newlines into spaces", () => {
    expect(escapeTerminal("a\tb\nc")).toBe("a b c");
  });
});
