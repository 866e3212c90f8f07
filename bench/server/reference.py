"""The reference server (openreward 0.1.167) serving ``DialogueEnv``, for ``npm run bench:server``.

``DialogueEnv`` is the Python twin of ``examples/support.ts``'s ``DialogueEnv`` (the "Multi-turn
Conversations" page's support dialogue): the same task, the same conversation from
``get_messages``, the same ``submit`` tool and grading rule, so ``/messages`` and ``/call`` answer
with the same JSON as our server does. The callbacks are ``async def``: the reference runs those on
its event loop, while a plain ``def`` would cost a thread hop per request (``asyncio.to_thread``),
so this is the reference's fastest way to write them.

Served as ``Server.run`` serves it (``uvicorn.run`` with one worker, ``timeout_keep_alive=60``, no
access log), on 127.0.0.1 only. ``Server.run`` itself is not called because it also checks PyPI for
updates. The reference logs a line per request at INFO; the benchmark sets ``OPENREWARD_LOG_LEVEL``
(read when ``openreward`` is imported) to WARNING by default, since our server logs only failures.
The process exits as soon as its standard input closes, so it never outlives the benchmark that
started it.

    python reference.py --port 8123
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import threading

import uvicorn
from pydantic import BaseModel, Field

from openreward.environments import Environment, JSONObject, Message, Server, TextBlock, ToolOutput, tool

SUPPORT_1: JSONObject = {
    "id": "support-1",
    "conversation": [
        {"role": "system", "text": "You are a support agent for Acme."},
        {"role": "user", "text": "My order hasn't arrived."},
        {"role": "assistant", "text": "Sorry to hear that \u2014 what's the order number?"},
        {"role": "user", "text": "It's #4411, ordered two weeks ago."},
    ],
}

ORDER = re.compile(r"(^|[^0-9])4411([^0-9]|$)")


class SubmitInput(BaseModel):
    answer: str = Field(description="The next assistant message.")


class DialogueEnv(Environment):
    async def get_messages(self) -> list[Message]:
        return [
            Message(role=turn["role"], blocks=[TextBlock(text=turn["text"])])
            for turn in self.task_spec["conversation"]
        ]

    @classmethod
    def list_splits(cls):
        return ["train"]

    @classmethod
    def list_tasks(cls, split: str) -> list[JSONObject]:
        return [SUPPORT_1]

    @tool
    async def submit(self, params: SubmitInput) -> ToolOutput:
        """Submit your reply to the customer."""
        if ORDER.search(params.answer):
            return ToolOutput(blocks=[TextBlock(text="Reply accepted.")], reward=1.0, finished=True)
        return ToolOutput(
            blocks=[TextBlock(text="The reply should refer to the customer's order by its number.")],
            reward=0.0,
            finished=False,
        )


def exit_when_parent_goes() -> None:
    """Exit the moment standard input closes (the benchmark ended, however it ended)."""
    sys.stdin.buffer.read()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    threading.Thread(target=exit_when_parent_goes, daemon=True).start()
    app = Server([DialogueEnv]).app
    uvicorn.run(app, host="127.0.0.1", port=args.port, timeout_keep_alive=60, access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
