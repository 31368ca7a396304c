/**
 * The simulator's users for `--sim`: a static token file as kube-apiserver's `--token-auth-file`
 * reads it (`token,user,uid,"group1,group2"` lines), given to the simulator, which then answers
 * TokenReview for them and authorizes them by the Roles and bindings stored in it.
 */
import type { SimTokenUser } from '@rxinformer/apiserver-sim';

/** The users of a token file's `text`; throws naming the line of a malformed one. */
export function parseTokenFile(text: string, file: string): SimTokenUser[] {
  const users: SimTokenUser[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?$/.exec(line.trim());
    if (!m) throw new Error(`${file}:${i + 1}: expected token,user,uid,"group1,group2"`);
    const groups = (m[4] ?? '').split(',').filter((g) => g !== '');
    users.push({ token: m[1], username: m[2], ...(m[3] !== '' && { uid: m[3] }), groups });
  }
  return users;
}
