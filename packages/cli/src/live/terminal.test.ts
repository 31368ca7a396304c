import { describe, expect, it } from '@jest/globals';
import { terminalOutput } from './terminal.ts';

describe('terminalOutput', () => {
  const capture = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { chunks, out: terminalOutput({ isTTY, write: (t) => chunks.push(t) }) };
  };

  it('should write plain lines and never an escape code when not a terminal', () => {
    const { chunks, out } = capture(false);
    out.line('a');
    out.enterScreen();
    out.frame(['x']);
    out.line('b');
    out.leaveScreen();
    expect(chunks.join('')).toBe('a\nb\n');
  });

  it('should redraw frames in place on the alternate screen and restore the terminal once', () => {
    const { chunks, out } = capture(true);
    out.line('before');
    out.enterScreen();
    out.frame(['one', 'two']);
    out.line('ignored while on screen');
    out.leaveScreen();
    out.leaveScreen();
    expect(chunks).toEqual([
      'before\n',
      '\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J',
      '\u001b[Hone\u001b[K\ntwo\u001b[K\u001b[J',
      '\u001b[?25h\u001b[?1049l',
    ]);
  });
});
