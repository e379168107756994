/**
 * The reference server's records. They are plain JSON values, so a dataset file (docs/reference-server.md)
 * holds exactly these shapes. Calendar dates are `yyyy-MM-dd` strings; timestamps are
 * `yyyy-MM-dd HH:mm:ss.SSS` strings in server local time, as tinyPM writes them.
 */

export type ApiVersion = "2.6" | "2.5";

export const PRIORITIES = ["MUST_HAVE", "SHOULD_HAVE", "COULD_HAVE", "WONT_HAVE"] as const;
export const COLORS = ["WHITE", "YELLOW", "ORANGE", "RED", "GREEN", "BLUE"] as const;
export const ACCEPTANCE = ["PENDING", "ACCEPTED", "REJECTED"] as const;
export const LEGACY_STATUSES = ["PENDING", "IN_PROGRESS", "COMPLETED"] as const;

type Color = (typeof COLORS)[number];
type AcceptanceStatus = (typeof ACCEPTANCE)[number];
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

export interface UserRecord {
  id: number;
  name: string;
  login: string;
  email: string;
  active: boolean;
  initials?: string | undefined;
}

export interface TaskStatusRecord {
  id: number;
  name: string;
}

export interface ProjectRecord {
  id: number;
  code: string;
  name: string;
  description?: string | undefined;
  startDate?: string | undefined;
  targetFinishDate?: string | undefined;
  ownerId?: number | undefined;
  /** In board order: the first is "not started", the last is "done". */
  taskStatuses: TaskStatusRecord[];
  estimates: number[];
  taskEstimates: number[];
  iterationLength?: number | undefined;
  defaultTask?: string | undefined;
  active: boolean;
}

export interface IterationRecord {
  id: number;
  projectId: number;
  name: string;
  goal?: string | undefined;
  plannedVelocity?: number | undefined;
  position: number;
  startDate: string;
  /** Days. */
  duration: number;
}

export interface StoryRecord {
  id: number;
  projectId: number;
  position: number;
  name: string;
  description?: string | undefined;
  /** 1 MUST_HAVE … 4 WONT_HAVE. */
  priority?: number | undefined;
  estimatedEffort?: number | undefined;
  iterationId?: number | undefined;
  color?: Color | undefined;
  ownerId?: number | undefined;
  acceptingUserId?: number | undefined;
  acceptanceStatus?: AcceptanceStatus | undefined;
  tags: string[];
}

export interface TaskRecord {
  id: number;
  storyId: number;
  name: string;
  description?: string | undefined;
  statusId: number;
  estimatedEffort?: number | undefined;
  startedAt?: string | undefined;
  completedAt?: string | undefined;
  assignedUserIds: number[];
}

export interface CommentRecord {
  /** Exactly one of storyId and taskId. */
  storyId?: number | undefined;
  taskId?: number | undefined;
  author: string;
  date: string;
  body: string;
}

export interface ActivityRecord {
  taskId: number;
  userId: number;
  date: string;
  /** Hours. */
  timeSpent: number;
  timeLeft?: number | undefined;
}

export interface Dataset {
  users: UserRecord[];
  projects: ProjectRecord[];
  iterations: IterationRecord[];
  stories: StoryRecord[];
  tasks: TaskRecord[];
  comments: CommentRecord[];
  activities: ActivityRecord[];
}
