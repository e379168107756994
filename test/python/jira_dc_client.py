"""Drives the Jira Data Center sandbox with python-jira (pycontribs/jira), unmodified.

Usage: python3 jira_dc_client.py <server-url> <personal-access-token>
Reads the PAT from the JIRA_DC_PAT environment variable when it is not given. Prints one JSON
object with what each step saw; exits non-zero (with the step's name) on the first failure.
"""
import json
import os
import sys

from jira import JIRA, JIRAError
from jira.resources import Issue

server = sys.argv[1]
pat = sys.argv[2] if len(sys.argv) > 2 else os.environ["JIRA_DC_PAT"]
seen = {}
step = "connect"
try:
    jira = JIRA(server, token_auth=pat, options={"check_update": False})
    seen["deploymentType"] = jira.deploymentType
    seen["version"] = list(jira._version)
    seen["is_cloud"] = jira._is_cloud
    seen["myself"] = jira.myself()["name"]

    step = "create"
    keys = []
    for i in range(7):
        issue = jira.create_issue(
            project="WID",
            summary=f"Python story {i}",
            description="h2. Notes\n*bold* and {{mono}}",
            issuetype={"name": "Story"},
        )
        keys.append(issue.key)
    seen["created"] = keys
    seen["description"] = jira.issue(keys[0]).fields.description

    step = "search paging"
    page = jira.search_issues("project = WID ORDER BY key ASC", startAt=0, maxResults=3)
    seen["first_page"] = [i.key for i in page]
    seen["total"] = page.total
    # maxResults=False: python-jira pages through every result in batches (here of 3 issues).
    paged = JIRA(
        server,
        token_auth=pat,
        options={"check_update": False},
        default_batch_sizes={Issue: 3},
    )
    every = paged.search_issues("project = WID ORDER BY key ASC", maxResults=False)
    seen["all"] = [i.key for i in every]
    second = jira.search_issues("project = WID ORDER BY key ASC", startAt=3, maxResults=3)
    seen["second_page"] = [i.key for i in second]

    step = "search window"
    try:
        jira.search_issues("project = WID ORDER BY key ASC", startAt=8, maxResults=3)
        seen["past_window"] = "served"
    except JIRAError as error:
        seen["past_window"] = error.status_code
        seen["past_window_text"] = error.text

    step = "assign"
    jira.assign_issue(keys[0], "bob")
    seen["assignee"] = jira.issue(keys[0]).fields.assignee.name
    seen["users"] = [u.name for u in jira.search_users(user="carol")]

    step = "comment"
    comment = jira.add_comment(keys[0], "A comment with [~bob] and ||h||\n|c|")
    seen["comment"] = jira.comment(keys[0], comment.id).body
    seen["comment_author"] = comment.author.name

    step = "transition"
    names = [t["name"] for t in jira.transitions(keys[0])]
    seen["transitions"] = names
    jira.transition_issue(keys[0], names[0])
    seen["status"] = jira.issue(keys[0]).fields.status.name

    step = "worklog"
    worklog = jira.add_worklog(keys[0], timeSpent="1h 30m", comment="Pairing on {{code}}")
    seen["worklog_seconds"] = worklog.timeSpentSeconds
    seen["worklogs"] = [w.comment for w in jira.worklogs(keys[0])]

    step = "sprints"
    board = jira.boards()[0]
    sprint = jira.create_sprint("Sprint 1, the first", board.id)
    jira.add_issues_to_sprint(sprint.id, keys[:2])
    seen["sprints"] = [s.name for s in jira.sprints(board.id)]
    sprint_field = [f["id"] for f in jira.fields() if f["name"] == "Sprint"][0]
    seen["sprint_field"] = getattr(jira.issue(keys[0]).fields, sprint_field)

    step = "properties"
    jira.add_issue_property(keys[0], "tinypm", {"id": 7})
    seen["property"] = jira.issue_property(keys[0], "tinypm").value.id

    step = "refused token"
    try:
        JIRA(server, token_auth="not-the-token", options={"check_update": False}).myself()
        seen["refused"] = "accepted"
    except JIRAError as error:
        seen["refused"] = error.status_code
except Exception as error:  # the step's name says what python-jira could not do
    print(json.dumps({"failed": step, "error": repr(error), "seen": seen}, default=str))
    sys.exit(1)

print(json.dumps(seen, default=str))
