/**
 * The judging fixture against the live reference SDK (run by `npm run test:interop`, which points
 * `OPENREWARD_PYTHON` at a venv holding openreward 0.1.167): test/fixtures/judging/generate.py must
 * regenerate the committed `reference.json` byte for byte, so the fixture test/Judge.test.ts,
 * test/Ranking.test.ts and test/ChatModel.test.ts check without Python really is the reference's.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Command from "@effect/platform/Command"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))

describe("judging fixture against the live reference", () => {
  it.effect("test/fixtures/judging/reference.json is what the reference produces now", () =>
    Effect.gen(function*() {
      const python = process.env["OPENREWARD_PYTHON"]
      if (python === undefined || python === "") {
        return yield* Effect.dieMessage("OPENREWARD_PYTHON is not set: run this suite with npm run test:interop")
      }
      const code = yield* Command.make(python, "test/fixtures/judging/generate.py", "--check").pipe(
        Command.workingDirectory(root),
        Command.stdout("inherit"),
        Command.exitCode
      )
      assert.strictEqual(code, 0, "regenerate it: python test/fixtures/judging/generate.py")
    }).pipe(Effect.provide(NodeContext.layer)), 120_000)
})
