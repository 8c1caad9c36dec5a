"""OpenAI-compatible `POST {base_url}/chat/completions` over httpx, with a whole-request deadline
and a cap on the reply size. Every failure becomes LLMError (the answerer then uses the template)."""

from __future__ import annotations

import json
import time

import httpx

from ...errors import LLMError
from ...settings import LLMSettings


class OpenAICompatLLM:
    def __init__(self, settings: LLMSettings, transport: httpx.BaseTransport | None = None):
        if not settings.enabled:
            raise LLMError("the LLM needs both llm.base_url and llm.model")
        self.settings = settings
        self.name = settings.model or ""
        self.url = settings.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(settings.timeout_s),
                                    transport=transport, follow_redirects=False, trust_env=False)

    def _read(self, response: httpx.Response, deadline: float) -> bytes:
        cap, body = self.settings.max_response_bytes, bytearray()
        for part in response.iter_bytes():
            body += part
            if len(body) > cap:
                raise LLMError(f"LLM reply larger than {cap} bytes")
            if time.monotonic() > deadline:
                raise LLMError(f"LLM reply took longer than {self.settings.timeout_s:g} s")
        return bytes(body)

    def complete(self, messages: list[dict[str, str]]) -> str:
        payload = {"model": self.settings.model, "messages": messages, "temperature": 0,
                   "max_tokens": self.settings.max_tokens, "stream": False}
        deadline = time.monotonic() + self.settings.timeout_s
        try:
            with self._client.stream("POST", self.url, json=payload) as response:
                body = self._read(response, deadline)
                status = response.status_code
        except httpx.TimeoutException:
            raise LLMError(f"LLM timed out after {self.settings.timeout_s:g} s") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # InvalidURL is not an HTTPError
            raise LLMError(f"LLM request failed: {exc.__class__.__name__}: {exc}") from None
        if status != 200:
            raise LLMError(f"LLM answered HTTP {status}")
        try:
            content = json.loads(body)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError("LLM reply is not a chat-completions JSON document") from None
        if not isinstance(content, str) or not content.strip():
            raise LLMError("LLM reply has no text")
        return content

    def close(self) -> None:
        self._client.close()
