/**
 * `rxinformer soak --runs N [--json] [--objects 2000] [--seed S]` (`npm run soak --` in the
 * repository): the chaos soak of rxinformer and
 * client-node's makeInformer against the simulator. Exit code 0 only when every rxinformer run
 * converged with no UID violation; client-node failing is data, not an error. 2 on bad arguments.
 */
import { passed, runSoak } from './soak.ts';
import { parseSoakArgs, SOAK_USAGE, SoakArgsError } from './soakArgs.ts';
import { runLine, soakJson, soakTable } from './soakReport.ts';

/** Runs the soak with the command line `argv` (without `node`, the script and `soak`); sets `process.exitCode`. */
export async function runSoakCommand(argv: readonly string[]): Promise<void> {
  try {
    const { options, json, help } = parseSoakArgs([...argv]);
    if (help) {
      console.log(SOAK_USAGE);
      return;
    }
    const summary = await runSoak({ ...options, onRun: (result, run) => console.error(runLine(result, run)) });
    console.log(json ? soakJson(summary) : `\n${soakTable(summary)}`);
    const rxinformerRan = summary.rxinformer.runs > 0;
    process.exitCode = !rxinformerRan || passed(summary.rxinformer) ? 0 : 1;
  } catch (error) {
    if (!(error instanceof SoakArgsError)) throw error;
    console.error(error.message);
    process.exitCode = 2;
  }
}
