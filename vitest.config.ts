import * as os from "node:os"
import * as path from "node:path"
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { alias } from "./vitest.shared.js"

/**
 * The files that spend their time waiting on child processes (servers, the CLI, `tsc` over the docs'
 * examples), longest first. They start first so that their waiting overlaps the other files instead
 * of trailing the run; after them, vitest's own order (by the last run's durations when it has them).
 */
const slowFirst = [
  "test/Docs.test.ts",
  "test/Client.test.ts",
  "test/Shutdown.test.ts",
  "test/Cli.test.ts",
  "test/Server.test.ts",
  "test/Replica.test.ts"
]

class SlowFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const index = slowFirst.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join("/"))
      return index === -1 ? slowFirst.length : index
    }
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(
      ({ spec }) => spec
    )
  }
}

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/interop/**", "test/scale/**", "node_modules/**"],
    // One module graph per worker instead of per file: the files share effect and the library's
    // modules already loaded, which took a quarter of the run to load again (collect 27 s -> 5 s).
    // Every file restores what it changes (console capture, env variables), so none leaks.
    isolate: false,
    // vitest's default is one worker per core but one (2 - 1 = 1 on a 2-core machine): one file at a
    // time, a core idle while it waits on a child process. Three on two cores keep both busy while
    // the process-bound files wait. The files share no port, directory or state.
    maxWorkers: Math.max(3, os.availableParallelism()),
    sequence: { sequencer: SlowFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
