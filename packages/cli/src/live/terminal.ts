/**
 * The live view's output: plain lines, or a screen redrawn in place on a terminal (the alternate
 * screen, cursor hidden, each frame drawn from the top-left and cleared to the end). Only this file
 * writes escape codes, and only when the output is a terminal.
 */

/** Where to write, and whether it is a terminal. */
export interface OutputTarget {
  write(text: string): void;
  isTTY: boolean;
}

/** The live view's writer. */
export interface LiveOutput {
  /** Appends a line (plain output; on a terminal before the screen is entered). */
  line(text: string): void;
  /** Switches a terminal to the alternate screen and hides the cursor; a no-op for plain output. */
  enterScreen(): void;
  /** Redraws the screen with `lines` (terminal only). */
  frame(lines: readonly string[]): void;
  /** Restores the terminal (cursor, main screen). Idempotent; a no-op when the screen was never entered. */
  leaveScreen(): void;
}

const ESC = '\u001b[';

/**
 * Creates the writer.
 *
 * @example
 * const out = terminalOutput({ write: (t) => process.stdout.write(t), isTTY: !!process.stdout.isTTY });
 * out.line('hello');
 *
 * Caveat: a frame must already fit the terminal (`renderScreen` does that); longer lines wrap and scroll.
 */
export function terminalOutput(target: OutputTarget): LiveOutput {
  let onScreen = false;
  return {
    line: (text) => {
      if (!onScreen) target.write(`${text}\n`);
    },
    enterScreen: () => {
      if (!target.isTTY || onScreen) return;
      onScreen = true;
      target.write(`${ESC}?1049h${ESC}?25l${ESC}H${ESC}2J`);
    },
    frame: (lines) => {
      if (!onScreen) return;
      target.write(`${ESC}H${lines.map((l) => `${l}${ESC}K`).join('\n')}${ESC}J`);
    },
    leaveScreen: () => {
      if (!onScreen) return;
      onScreen = false;
      target.write(`${ESC}?25h${ESC}?1049l`);
    },
  };
}
