import { createRandom } from "../server-kit/prng.js";
import { generateStories, type Calendar } from "./generate-stories.js";
import type { Dataset, IterationRecord, ProjectRecord, UserRecord } from "./model.js";
import { addDays, formatLongDate, formatShortDate } from "./xml-write.js";

/** How much to generate: stories, tasks per story, comments per story. */
export interface GenerateSpec {
  readonly stories: number;
  readonly tasks: number;
  readonly comments: number;
  /**
   * Percentage of the stories placed in the two closed (past) iterations; the others go to the
   * backlog, the current and a future iteration. Absent: the default mix (2 in 7 closed).
   */
  readonly closed?: number | undefined;
}

export const PRESETS: Readonly<Record<string, GenerateSpec>> = {
  empty: { stories: 0, tasks: 0, comments: 0 },
  small: { stories: 5, tasks: 3, comments: 2 },
  medium: { stories: 60, tasks: 3, comments: 2 },
  large: { stories: 2000, tasks: 4, comments: 1 },
};

const SPEC_KEYS = ["stories", "tasks", "comments", "closed"] as const;
const MAX = { stories: 100_000, tasks: 50, comments: 50, closed: 100 };

/**
 * Parses `--generate`: a preset name or `stories=N,tasks=M,comments=K` (any subset, others 0).
 * Throws an Error naming the valid choices.
 */
export function parseGenerateSpec(text: string): GenerateSpec {
  const preset = PRESETS[text.trim()];
  if (preset) return preset;
  const spec: Record<(typeof SPEC_KEYS)[number], number | undefined> = {
    stories: 0,
    tasks: 0,
    comments: 0,
    closed: undefined,
  };
  const usage = `valid: a preset (${Object.keys(PRESETS).join(", ")}) or stories=N,tasks=M,comments=K[,closed=PERCENT]`;
  for (const part of text.split(",").map((s) => s.trim())) {
    const [key, value] = part.split("=");
    const k = key as (typeof SPEC_KEYS)[number];
    if (!SPEC_KEYS.includes(k) || value === undefined || !/^\d{1,6}$/.test(value)) {
      throw new Error(`invalid generate spec "${text}" at "${part}"; ${usage}`);
    }
    if (Number(value) > MAX[k]) {
      throw new Error(`invalid generate spec "${text}": ${k} must be at most ${MAX[k]}`);
    }
    spec[k] = Number(value);
  }
  return {
    stories: spec.stories ?? 0,
    tasks: spec.tasks ?? 0,
    comments: spec.comments ?? 0,
    ...(spec.closed !== undefined && { closed: spec.closed }),
  };
}

const BASE_USERS: readonly [string, string][] = [
  ["alice", "Alice Smith"],
  ["bob", "Bob Müller"],
  ["carol", "Carol Nuñez"],
  ["dave", "Dave O'Brien"],
  ["erin", "Zoë Ångström"],
  ["frank", "陈伟"],
];

function initialsOf(name: string): string {
  return name
    .split(/[\s-]+/)
    .map((w) => String.fromCodePoint(w.codePointAt(0) ?? 32).trim())
    .join("")
    .toUpperCase();
}

function makeUsers(stories: number): UserRecord[] {
  const extra = Math.floor(stories / 250);
  const pairs = [...BASE_USERS];
  for (let n = 7; n < 7 + extra; n++) pairs.push([`user${n}`, `User ${n}`]);
  return pairs.map(([login, name], i) => ({
    id: i + 1,
    name,
    login,
    email: `${login}@example.com`,
    active: login !== "frank",
    initials: initialsOf(name),
  }));
}

function makeProjects(cal: Calendar): [ProjectRecord, ProjectRecord] {
  return [
    {
      id: 1,
      code: "WID",
      name: "Widgets",
      description: "Everything about widgets.\r\nShipped to customers <every> sprint & tested.",
      startDate: cal.day(-60),
      targetFinishDate: cal.day(120),
      ownerId: 1,
      taskStatuses: [
        { id: 1, name: "TO DO" },
        { id: 2, name: "IN PROGRESS" },
        { id: 4, name: "TESTING" },
        { id: 3, name: "COMPLETED" },
      ],
      estimates: [0, 0.5, 1, 2, 3, 5, 8, 13, 20, 40, 80, 100],
      taskEstimates: [0, 0.5, 1, 2, 4, 8, 16],
      iterationLength: 14,
      defaultTask: 'Implement and test user story "{0}".',
      active: true,
    },
    {
      id: 2,
      code: "OLD",
      name: "Legacy gadgets",
      startDate: cal.day(-400),
      ownerId: 2,
      taskStatuses: [
        { id: 5, name: "PENDING" },
        { id: 6, name: "IN_PROGRESS" },
        { id: 7, name: "COMPLETED" },
      ],
      estimates: [1, 2, 3],
      taskEstimates: [1, 2],
      iterationLength: 7,
      active: false,
    },
  ];
}

/** Project 1's iterations: two past, the current one (contains today), two future. */
function makeIterations(cal: Calendar): IterationRecord[] {
  const goals = ["Walking skeleton", "Checkout flow", "Ünïcode everywhere", "Hardening", undefined];
  return [-35, -21, -7, 7, 21].map((offset, i) => ({
    id: i + 1,
    projectId: 1,
    name: `Sprint ${i + 1}`,
    goal: goals[i],
    plannedVelocity: [20, 24.5, 30, 30, undefined][i],
    position: i + 1,
    startDate: cal.day(offset),
    duration: 14,
  }));
}

function calendarFor(today: Date): Calendar {
  const base = formatShortDate(today);
  return {
    day: (offset) => addDays(base, offset),
    at: (offset, minuteOfDay, ms) =>
      formatLongDate(
        new Date(
          today.getFullYear(),
          today.getMonth(),
          today.getDate() + offset,
          Math.floor(minuteOfDay / 60),
          minuteOfDay % 60,
          (minuteOfDay * 7) % 60,
          ms,
        ),
      ),
  };
}

/** A deterministic dataset for a seed; dates are relative to `today`. */
export function generateDataset(spec: GenerateSpec, seed: number, today: Date): Dataset {
  const random = createRandom(seed);
  const cal = calendarFor(today);
  const users = makeUsers(spec.stories);
  const [widgets, legacy] = makeProjects(cal);
  const iterations = makeIterations(cal);
  const rest = generateStories({ spec, random, cal, users, project: widgets, iterations });
  return { users, projects: [widgets, legacy], iterations, ...rest };
}
