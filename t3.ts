import * as Either from "effect/Either"
import * as Dataset from "./src/Dataset.js"
import * as fs from "node:fs"
const dir = "../shared/corpora/transcripts/cli/"
for (const to of ["canonical", "anthropic", "google", "openai-responses"] as const) {
  const lines = fs.readFileSync(dir + "openai-inputs.jsonl", "utf8").trimEnd().split("\n")
  lines.forEach((l, i) => {
    const r = Dataset.convertRecord(JSON.parse(l), { record: "auto", to, unsupported: "error" })
    if (Either.isLeft(r)) console.log(to, i + 1, r.left._tag, r.left.message.slice(0, 220))
  })
}
