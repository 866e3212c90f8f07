/**
 * The codec laws (src/Codec.ts), for any format, from one place:
 *
 * 1. `encode(c, options)` succeeds, or fails with one of the format's `encodeErrors`, pointing at an
 *    existing message (and block, and block inside a tool result) of `c`.
 * 2. When `encode(c, options)` succeeds, `decode` of its JSON gives `normalize(c, options)`: the
 *    conversation up to exactly the losses the format's page documents, and every provider block's
 *    item comes back byte for byte (key order included). This law runs on
 *    conversations that encode: an arbitrary conversation is repaired by removing, one at a time,
 *    what the encoder points at (a block, a block inside a tool result, a message) until it
 *    encodes, so no run is a sample where almost nothing encodes.
 * 3. `decode` never throws, whatever it is given: it answers a valid conversation, or one of the
 *    format's `decodeErrors`.
 * 4. Whatever `encode` writes is the format's `Input` (`Schema.is`), whatever the options.
 * 5. `XFormat.schema` is the codec (default options) with `Input` as its encoded side: its encode
 *    writes exactly what `encode` writes, key order included, or fails carrying `encode`'s error; its
 *    decode answers what `decode` answers, whatever it is given (the same conversation, or a failure
 *    carrying `decode`'s tagged error, which `schema.decodeError` and `Codec.errorOf` give back, its
 *    message the error's); and `JSONSchema.make` and `Schema.encodedSchema` of it are `Input`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Block, Codec, Conversation, type ConversionError, Json, type Message } from "openreward-effect"

type Tag = ConversionError.ConversionError["_tag"]

/** What the laws need of a format: its functions, its error lists, and its documented losses. */
export interface Format<Options> {
  readonly encode: (
    conversation: Conversation.Conversation,
    options?: Options
  ) => Either.Either<unknown, ConversionError.EncodeError>
  readonly decode: (input: unknown) => Either.Either<Conversation.Conversation, ConversionError.DecodeError>
  readonly encodeErrors: ReadonlyArray<Tag>
  readonly decodeErrors: ReadonlyArray<Tag>
  /** Everything `decode` reads, as a Schema that only validates. */
  readonly Input: Schema.Schema<any, any>
  /** The codec as a Schema, `Input` on its encoded side. */
  readonly schema: Codec.Transformation<
    Conversation.Conversation,
    any,
    ConversionError.DecodeError,
    ConversionError.EncodeError
  >
}

export interface Laws<Options> {
  /** `decode(encode(c, options))` as the format's page says it comes back. */
  readonly normalize: (
    conversation: Conversation.Conversation,
    options: Options | undefined
  ) => Conversation.Conversation
  /** The option sets the laws run with (`undefined`: the defaults). */
  readonly options: ReadonlyArray<Options | undefined>
  /** Is an encoded request, written to JSON and read back, what the format's `Input` schema accepts? */
  readonly isWire?: (u: unknown) => boolean
  /** The conversations to start from (default: every canonical conversation). */
  readonly conversations?: FastCheck.Arbitrary<Conversation.Conversation>
  readonly numRuns?: number
}

const anyConversation = Arbitrary.make(Conversation.Conversation)

/** Does `error` point into `conversation`, at the block its tag names? */
const pointsInto = (conversation: Conversation.Conversation, error: ConversionError.EncodeError): void => {
  const message = conversation[error.messageIndex]
  assert.isDefined(message, `${error._tag} points at message ${error.messageIndex}`)
  assert.strictEqual(error.path[0], error.messageIndex)
  if (error._tag === "UnsupportedMessage") {
    assert.deepStrictEqual(error.path, [error.messageIndex])
    return
  }
  assert.deepStrictEqual(error.path.slice(0, 3), [error.messageIndex, "blocks", error.blockIndex])
  const block = message!.blocks[error.blockIndex]
  assert.isDefined(block, `${error._tag} points at block ${error.blockIndex}`)
  if (error.path.length > 3) {
    // inside a tool result: [m, "blocks", b, "blocks", i]
    assert.strictEqual(block!.type, "tool_result")
    assert.strictEqual(error.path[3], "blocks")
    const inner = block!.type === "tool_result" ? block!.blocks[error.path[4] as number] : undefined
    assert.isDefined(inner)
    if (error._tag === "UnsupportedBlock" || error._tag === "MisplacedBlock") {
      assert.strictEqual(inner!.type, error.blockType)
    }
  } else if (error._tag === "UnsupportedBlock" || error._tag === "MisplacedBlock") {
    assert.strictEqual(block!.type, error.blockType)
  }
}

/** `conversation` without what `error` points at: a message, a block, or a block inside a tool result. */
const without = (
  conversation: Conversation.Conversation,
  error: ConversionError.EncodeError
): Conversation.Conversation => {
  const m = error.messageIndex
  if (error._tag === "UnsupportedMessage") return conversation.filter((_, i) => i !== m)
  const b = error.blockIndex
  const inner = error.path.length > 4 ? error.path[4] as number : undefined
  return conversation.map((message, i): Message.Message => {
    if (i !== m) return message
    const blocks = (message.blocks as ReadonlyArray<Message.Message["blocks"][number]>).flatMap((block, j) => {
      if (j !== b) return [block]
      if (inner === undefined || block.type !== "tool_result") return []
      return [{ ...block, blocks: block.blocks.filter((_, k) => k !== inner) }]
    })
    return { ...message, blocks } as Message.Message
  })
}

/** The conversation, with what the encoder refuses removed until it encodes with `options`. */
export const encodable = <Options>(
  format: Format<Options>,
  options: Options | undefined,
  conversations: FastCheck.Arbitrary<Conversation.Conversation> = anyConversation
): FastCheck.Arbitrary<Conversation.Conversation> =>
  conversations.map((conversation) => {
    let current = conversation
    // every step removes a message or a block (or the error does not point into the conversation,
    // which law 1 reports): at most one step per message and block
    const steps = conversation.reduce(
      (n, m) =>
        n + 1 + (m.blocks as ReadonlyArray<Message.Message["blocks"][number]>).reduce(
          (k, b) => k + 1 + (b.type === "tool_result" ? b.blocks.length : 0),
          0
        ),
      1
    )
    for (let step = 0; step < steps; step++) {
      const result = format.encode(current, options)
      if (Either.isRight(result)) return current
      current = without(current, result.left)
    }
    return assert.fail("the conversation cannot be made encodable by removing what encode points at")
  })

/** The items of a conversation's provider blocks, as JSON text (key order counts). */
const providerItems = (conversation: Conversation.Conversation): ReadonlyArray<string> =>
  conversation.flatMap((message) =>
    (message.blocks as ReadonlyArray<Block.Block>).flatMap((b) => b.type === "provider" ? [JSON.stringify(b.item)] : [])
  )

/**
 * Conversations with provider blocks of `provider` put in their user and assistant messages, up to
 * two a message at any position (of the messages of `roles`): `items` are the items (the provider's
 * JSON), `kindOf` says the kind its decoder gives one.
 */
export const withProviderBlocks = (
  provider: string,
  items: FastCheck.Arbitrary<Json.JsonObject>,
  kindOf: (item: Json.JsonObject) => string,
  conversations: FastCheck.Arbitrary<Conversation.Conversation> = anyConversation,
  roles: ReadonlyArray<"user" | "assistant"> = ["user", "assistant"]
): FastCheck.Arbitrary<Conversation.Conversation> =>
  conversations.chain((conversation) =>
    FastCheck.tuple(...conversation.map((message) =>
      message.role === "system" || !roles.includes(message.role)
        ? FastCheck.constant(message)
        : FastCheck.array(FastCheck.tuple(FastCheck.nat(), items), { maxLength: 2 }).map((inserts): Message.Message => {
          const blocks: Array<Block.Block> = [...message.blocks]
          for (const [at, item] of inserts) {
            blocks.splice(at % (blocks.length + 1), 0, Block.provider(provider, kindOf(item), item))
          }
          return { ...message, blocks } as Message.Message
        })
    ))
  )

/** JSON objects with a `type` from `types` first, then any other keys: a provider's item. */
export const typedItems = (types: FastCheck.Arbitrary<string>): FastCheck.Arbitrary<Json.JsonObject> =>
  FastCheck.tuple(types, Arbitrary.make(Json.JsonObject)).map(([type, rest]) => {
    const item: { [key: string]: Json.JsonValue } = { type }
    for (const [key, value] of Object.entries(rest)) {
      if (key === "type") continue
      Object.defineProperty(item, key, { value, writable: true, enumerable: true, configurable: true })
    }
    return item
  })

/** Run the codec laws for one format. */
export const codecLaws = <Options>(name: string, format: Format<Options>, laws: Laws<Options>): void => {
  const numRuns = laws.numRuns ?? 100
  const conversations = laws.conversations ?? anyConversation
  const isInput = Schema.is(format.Input)
  describe(`${name}: the codec laws`, () => {
    for (const options of laws.options) {
      const label = options === undefined ? "defaults" : JSON.stringify(options)

      it.prop(
        `law 1 (${label}): encode succeeds or fails with one of encodeErrors, at an existing message and block`,
        [conversations],
        ([conversation]) => {
          const result = format.encode(conversation, options)
          if (Either.isRight(result)) return
          assert.include(format.encodeErrors, result.left._tag)
          pointsInto(conversation, result.left)
        },
        { fastCheck: { numRuns } }
      )

      it.prop(
        `law 2 and 4 (${label}): decode(encode(c)) = normalize(c), on conversations that encode; what encode writes is the Input`,
        [encodable(format, options, conversations)],
        ([conversation]) => {
          const encoded = format.encode(conversation, options)
          assert.isTrue(Either.isRight(encoded), "the conversation encodes")
          if (Either.isLeft(encoded)) return
          const stored: unknown = JSON.parse(JSON.stringify(encoded.right))
          assert.isTrue(isInput(encoded.right), "what encode writes is the format's Input")
          assert.isTrue(isInput(stored), "what encode writes, as JSON, is the format's Input")
          if (laws.isWire !== undefined) assert.isTrue(laws.isWire(stored), "the encoded request is the format's wire")
          const decoded = format.decode(stored)
          if (Either.isLeft(decoded)) assert.fail(`decode failed: ${decoded.left.message}`)
          const expected = laws.normalize(conversation, options)
          assert.deepStrictEqual(decoded.right, expected)
          assert.deepStrictEqual(providerItems(decoded.right), providerItems(expected), "provider items, byte for byte")
        },
        { fastCheck: { numRuns } }
      )
    }

    it.prop(
      "law 3: decode never throws; it answers a valid conversation or one of decodeErrors",
      [FastCheck.oneof(FastCheck.anything(), FastCheck.jsonValue())],
      ([input]) => {
        const result = format.decode(input)
        if (Either.isLeft(result)) assert.include(format.decodeErrors, result.left._tag)
        else assert.isTrue(Either.isRight(Conversation.validate(result.right)))
      },
      { fastCheck: { numRuns: numRuns * 2 } }
    )

    const encodeSchema = Schema.encodeEither(format.schema)
    const decodeSchema = Schema.decodeUnknownEither(format.schema)

    it.prop(
      "law 5: the schema writes what encode writes, key order included, and reads it back as decode does",
      [encodable(format, undefined, conversations)],
      ([conversation]) => {
        const encoded = format.encode(conversation)
        if (Either.isLeft(encoded)) return assert.fail("the conversation encodes")
        const written = encodeSchema(conversation)
        if (Either.isLeft(written)) return assert.fail(`the schema's encode failed: ${written.left.message}`)
        assert.strictEqual(JSON.stringify(written.right), JSON.stringify(encoded.right))
        const stored: unknown = JSON.parse(JSON.stringify(encoded.right))
        const read = decodeSchema(stored)
        if (Either.isLeft(read)) return assert.fail(`the schema's decode failed: ${read.left.message}`)
        assert.deepStrictEqual(read.right, Either.getOrThrow(format.decode(stored)))
      },
      { fastCheck: { numRuns } }
    )

    it.prop(
      "law 5: the schema's decode answers as decode does, whatever it is given, its failure carrying decode's error",
      [FastCheck.oneof(FastCheck.anything(), FastCheck.jsonValue(), Arbitrary.make(format.Input))],
      ([input]) => {
        const direct = format.decode(input)
        const read = decodeSchema(input)
        if (Either.isRight(direct)) {
          if (Either.isLeft(read)) return assert.fail(`decode succeeds, the schema fails: ${read.left.message}`)
          assert.deepStrictEqual(read.right, direct.right)
          return
        }
        if (Either.isRight(read)) return assert.fail(`decode fails (${direct.left.message}), the schema succeeds`)
        assert.deepStrictEqual(format.schema.decodeError(read.left), direct.left)
        assert.deepStrictEqual(Option.getOrThrow(Codec.errorOf(read.left)), direct.left)
        assert.include(read.left.message, direct.left.message)
      },
      { fastCheck: { numRuns: numRuns * 2 } }
    )

    it.prop(
      "law 5: the schema's encode fails exactly where encode does, carrying encode's error",
      [conversations],
      ([conversation]) => {
        const direct = format.encode(conversation)
        const written = encodeSchema(conversation)
        if (Either.isRight(direct)) {
          if (Either.isLeft(written)) return assert.fail(`encode succeeds, the schema fails: ${written.left.message}`)
          assert.strictEqual(JSON.stringify(written.right), JSON.stringify(direct.right))
          return
        }
        if (Either.isRight(written)) return assert.fail(`encode fails (${direct.left.message}), the schema succeeds`)
        assert.deepStrictEqual(format.schema.encodeError(written.left), direct.left)
        assert.include(written.left.message, direct.left.message)
      },
      { fastCheck: { numRuns } }
    )

    it("law 5: JSONSchema.make of the schema and of its encodedSchema are the Input's (the wire)", () => {
      assert.deepStrictEqual(JSONSchema.make(format.schema), JSONSchema.make(format.Input))
      assert.deepStrictEqual(
        JSONSchema.make(Schema.encodedSchema(format.schema)),
        JSONSchema.make(format.Input)
      )
      // and the encoded side accepts what the Input's encoded side accepts
      const wire = Schema.is(Schema.encodedSchema(format.schema))
      const input = Schema.is(Schema.encodedSchema(format.Input))
      FastCheck.assert(
        FastCheck.property(
          FastCheck.oneof(Arbitrary.make(format.Input), FastCheck.jsonValue()),
          (value) => wire(value) === input(value)
        ),
        { numRuns }
      )
    })
  })
}
