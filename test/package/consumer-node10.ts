// A consumer compiled as older TypeScript setups compile: "module": "commonjs" with
// "moduleResolution": "node10", which reads neither `exports` nor `type`. The sub-paths resolve
// through package.json's `typesVersions`; strict, skipLibCheck off. Run with node, whose require()
// loads the ES module build (Node ^20.19 or >=22.12). scripts/test-package.sh copies this file into
// the project that has only openreward-effect and effect installed.
import * as Either from "effect/Either"
import * as assert from "node:assert"
import { Format, Message } from "openreward-effect"
import * as ConversionError from "openreward-effect/ConversionError"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as Throwing from "openreward-effect/Throwing"

const conversation = [Message.system("Be brief."), Message.user("Hi")]
const openai: OpenAiFormat.Wire = Either.getOrThrow(OpenAiFormat.encode(conversation))
assert.deepStrictEqual(openai, [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }])
assert.deepStrictEqual(Throwing.convertOrThrow(openai, { from: "openai", to: "anthropic" }), {
  system: "Be brief.",
  messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }]
})

const bad = Format.read("canonical", [{ role: "assistant", blocks: [{ type: "video" }] }])
assert.ok(Either.isLeft(bad) && ConversionError.isConversionError(bad.left))
const tag: ConversionError.ConversionError["_tag"] = bad.left._tag
console.log("node10 consumer ok:", tag)
