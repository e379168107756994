/** Whether to colour terminal output, and the colours of the text report. */

/** What {@link shouldColor} looks at: the stream and the environment (passed in, never read here). */
export interface ColorContext {
  readonly isTTY: boolean | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Colour when the output is a terminal, unless `NO_COLOR` is set to anything non-empty
 * (https://no-color.org) or `TERM=dumb`; `FORCE_COLOR` (other than `0`/`false`) forces it on
 * even into a pipe.
 * @example shouldColor({ isTTY: process.stdout.isTTY, env: process.env })
 */
export function shouldColor({ isTTY, env }: ColorContext): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.TERM === "dumb") return false;
  return isTTY === true;
}

/** A way to paint text: identity when colour is off. */
export type Paint = (text: string) => string;

export interface Palette {
  readonly green: Paint;
  readonly yellow: Paint;
  readonly red: Paint;
  readonly magenta: Paint;
  readonly cyan: Paint;
  readonly dim: Paint;
  readonly bold: Paint;
}

const sgr =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const plain: Paint = (text) => text;

/** ANSI colours, or no-ops when `color` is false. */
export function createPalette(color: boolean): Palette {
  if (!color)
    return {
      green: plain,
      yellow: plain,
      red: plain,
      magenta: plain,
      cyan: plain,
      dim: plain,
      bold: plain,
    };
  return {
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    red: sgr(31, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    dim: sgr(2, 22),
    bold: sgr(1, 22),
  };
}
