import { describe, expect, it } from "vitest";
import { targetLocation } from "./target-location.js";

describe("targetLocation", () => {
  it("names a GitHub repository case-insensitively, with its API host and path", () => {
    const gh = (baseUrl: string, owner: string, repo: string) =>
      targetLocation({ type: "github", baseUrl, owner, repo });
    expect(gh("https://api.github.com", "Acme", "Web")).toBe("github:api.github.com/acme/web");
    expect(gh("https://api.github.com/", "acme", "web")).toBe("github:api.github.com/acme/web");
    expect(gh("https://ghe.example.com/api/v3", "acme", "web")).toBe(
      "github:ghe.example.com/api/v3/acme/web",
    );
    expect(gh("http://127.0.0.1:4010", "acme", "web")).not.toBe(
      gh("http://127.0.0.1:4011", "acme", "web"),
    );
    expect(gh("https://api.github.com", "acme", "api")).not.toBe(
      gh("https://api.github.com", "acme", "web"),
    );
  });

  it("names a Jira project by its site and upper-case key", () => {
    const jira = (baseUrl: string, project: string) =>
      targetLocation({ type: "jira", baseUrl, project });
    expect(jira("https://Acme.atlassian.net", "web")).toBe("jira:acme.atlassian.net/WEB");
    expect(jira("https://acme.atlassian.net/", "WEB")).toBe("jira:acme.atlassian.net/WEB");
    expect(jira("https://other.atlassian.net", "WEB")).not.toBe(
      jira("https://acme.atlassian.net", "WEB"),
    );
  });
});
