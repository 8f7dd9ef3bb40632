"""The commands of /write-a-bot name this server where its address is known (PLAY_PUBLIC_ORIGIN),
so they work when the page is read without a browser (bot review s74: curl showed
`https://this-server`, which the page's script replaces only in a browser). In-process."""

from __future__ import annotations

from playsite.config import Settings
from tests.support.app import booted, test_client


async def write_a_bot(settings: Settings) -> str:
    async with booted(settings) as services:
        answer = await test_client(services).get("/write-a-bot")
        assert answer.status_code == 200
        return await answer.get_data(as_text=True)


async def test_the_page_names_the_public_origin_when_it_is_known():
    page = await write_a_bot(Settings(public_origin="https://play.example"))
    assert 'ORIGIN=<span class="origin">https://play.example</span>' in page
    assert "python3 random_bot.py https://play.example<" in page
    assert "this-server" not in page


async def test_without_one_the_page_says_this_server_for_its_script_to_replace():
    page = await write_a_bot(Settings())
    assert 'ORIGIN=<span class="origin">https://this-server</span>' in page
