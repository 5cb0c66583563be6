"""The explicit pass in Polish and Russian (issue 35): the same structure as the other languages —
a standing word ("zawsze", "nigdy", "od teraz", "na przyszłość"; "всегда", "никогда", "впредь",
"с этого момента", "больше не"), or a remember word with its clause ("pamiętaj, że …", "запомни:
…"), then an imperative, a modal or the team's practice. What happens ("serwer nie działa",
"у меня всегда падает"), a one-off step ("tym razem", "сейчас") and a reminder for the task at
hand in the perfective ("pamiętaj aby użyć …", "не забудь запустить …") are not rules.
"""

from __future__ import annotations

import pytest

from explicit_support import rule_texts


@pytest.mark.parametrize(("message", "expected"), [
    ("pamiętaj, że testy odpalamy zawsze przez pytest -q", "testy odpalamy"),
    ("Pamiętaj: w tym repo commity piszemy po angielsku", "commity piszemy po angielsku"),
    ("od teraz pisz commity po angielsku", "pisz commity po angielsku"),
    ("ok dzięki. od teraz używaj ruff zamiast flake8", "używaj ruff zamiast flake8"),
    ("zawsze używaj pnpm zamiast npm", "używaj pnpm zamiast npm"),
    ("nigdy nie commituj pliku .env", "nie commituj pliku .env"),
    ("na przyszłość: formatuj kod blackiem przed commitem", "formatuj kod blackiem"),
    ("i na przyszłość dodawaj type hinty do nowych funkcji", "dodawaj type hinty"),
    ("jeśli dodajesz zależność, zawsze przypinaj jej wersję", "przypinaj jej wersję"),
    ("używaj zawsze pojedynczych cudzysłowów", "pojedynczych cudzysłowów"),
    ("my zawsze robimy squash przy mergu", "robimy squash"),
    ("pamiętaj żeby uruchamiać testy przed każdym pushem", "uruchamiać testy"),
])
def test_polish_standing_requests_are_found(message: str, expected: str) -> None:
    texts = rule_texts(message)
    assert len(texts) == 1 and expected.lower() in texts[0].lower(), texts


@pytest.mark.parametrize(("message", "expected"), [
    ("запомни: мы деплоим только из ветки release", "деплоим только из ветки release"),
    ("запомни, что в этом проекте мы используем ruff", "используем ruff"),
    ("всегда используй pnpm вместо npm", "используй pnpm"),
    ("никогда не коммить .env файлы", "не коммить .env"),
    ("с этого момента пиши коммиты на английском", "пиши коммиты на английском"),
    ("впредь добавляй тесты к каждому фиксу", "добавляй тесты"),
    ("спасибо. больше не используй print для отладки", "не используй print"),
    ("если меняешь схему, всегда запускай миграции", "запускай миграции"),
    ("не забывай обновлять changelog", "обновлять changelog"),
    ("в будущем пиши докстринги на русском", "пиши докстринги"),
])
def test_russian_standing_requests_are_found(message: str, expected: str) -> None:
    texts = rule_texts(message)
    assert len(texts) == 1 and expected.lower() in texts[0].lower(), texts


@pytest.mark.parametrize("message", [
    "serwer nie działa",  # Polish "nie" is "not"
    "testy nigdy nie przechodzą na CI",  # what happens
    "zawsze mi się to wywala przy starcie",
    "rozpocznij fazę 2. pamiętaj aby użyć lokalnego qdranta",  # a reminder for this step (perfective)
    "tym razem zawsze dodawaj logi",  # this time
    "czy zawsze używamy pnpm?",  # a question
    "zapomnij o tym błędzie, zrób dalej",  # "forget it", move on
    "у меня всегда падает сборка",  # a complaint
    "тесты никогда не проходят локально",
    "не забудь запустить тесты",  # a reminder for now (perfective)
    "сейчас всегда добавляй логи в этот файл",  # now, this file
    "ты всегда так делаешь?",  # a question
    "забудь про этот файл, он не нужен",  # ignore it in this task
    "с этого момента сервер будет работать быстрее",  # a prediction
])
def test_polish_and_russian_non_requests_are_not_proposed(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize("message", [
    "od teraz rób to samo",  # points back: what "to samo" is stands elsewhere
    "всегда делай это",
    "zawsze rób tak",
])
def test_a_polish_or_russian_pointer_alone_is_not_a_rule(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "expected"), [
    ("мы всегда деплоим по пятницам", "Мы всегда деплоим по пятницам"),  # the team's practice keeps its "we"
    ("zawsze pisz testy, proszę", "Zawsze pisz testy"),  # trailing courtesy dropped
    ("всегда отвечай на русском, пожалуйста", "Всегда отвечай на русском"),
])
def test_the_rule_text_is_the_users_sentence_tidied(message: str, expected: str) -> None:
    assert rule_texts(message) == [expected]


@pytest.mark.parametrize(("message", "expected"), [
    ("zawsze kiedy dodajesz endpoint, dopisz test", "dopisz test"),
    ("каждый раз, когда добавляешь эндпоинт, пиши тест", "пиши тест"),
])
def test_every_time_you_do_a_kind_of_work(message: str, expected: str) -> None:
    texts = rule_texts(message)
    assert len(texts) == 1 and expected in texts[0], texts


@pytest.mark.parametrize("message", [
    "sprawdź czy zawsze działa",  # check whether it always works: the standing word is in the question
    "запусти тесты и проверь, что всегда проходит",
])
def test_a_standing_word_inside_an_object_clause_is_not_a_rule(message: str) -> None:
    assert rule_texts(message) == []


def test_an_english_rule_quoting_russian_words_is_read_in_english() -> None:
    texts = rule_texts("always write the greeting as `Привет, мир` in the ru locale")
    assert texts == ["Always write the greeting as `Привет, мир` in the ru locale"]
