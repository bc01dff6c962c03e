"""An engine's answers are read within the same limits as the Add/Search contract's: one
holding more JSON values than memrank parses is refused unparsed, naming the call."""

from __future__ import annotations

import pytest

from memrank.errors import ContractError
from memrank.systems.http import Native
from memrank.wire.answers import MAX_VALUES
from tests.systems.http.test_native import _handler
from tests.systems.http.translator import running_translator


def test_an_engine_answer_past_the_value_limit_is_refused_unparsed() -> None:
    flooded = _handler(padding=[0] * MAX_VALUES)  # one more value: the list itself
    with running_translator(RequestHandlerClass=flooded) as server:
        native = Native(server.url, timeout=10)
        with pytest.raises(ContractError) as caught:
            native.prepare("unit")
        native.close()
    assert str(caught.value).startswith(f"describe: GET {server.url}/describe holds more than")
    assert f"{MAX_VALUES:,} JSON values; memrank parsed none of it" in str(caught.value)


def test_an_engine_answer_within_it_is_read() -> None:
    padded = _handler(padding=[0] * (MAX_VALUES // 2))
    with running_translator(RequestHandlerClass=padded) as server:
        native = Native(server.url, timeout=10)
        native.prepare("unit")
        native.close()
