"""What the Firefox page tests do that page_support.py does through Selenium's elements: BiDi has no element
lookup, so controls are found and clicked through the page, and keys go to the focused control."""
from __future__ import annotations

from page_support import connection_text, wait_for

PHOTO_INPUT = "db-cell[data-kind=photo] input.upload-photo"


def open_in_firefox(firefox, url: str) -> None:
    """Opens `url` and waits until the page has its cells and is connected."""
    firefox.get(url)
    wait_for("the cells", lambda: firefox.execute_script("return document.querySelectorAll('db-cell').length"))
    wait_for("the connection", lambda: any(word in connection_text(firefox) for word in ("Connected", "resumed", "restored")))


def nudge(firefox, cell: str, param: str, key: str, times: int) -> None:
    """Focuses the parameter's slider and presses `key` (a firefox_bidi.KEYS name) `times` times."""
    firefox.execute_script(
        "const r = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param='${arguments[1]}'] input[type=range]`);"
        "r.scrollIntoView({block: 'center'}); r.focus();", cell, param)
    firefox.press(*[key] * times)


def click(firefox, selector: str) -> None:
    """Clicks the element matching `selector` in place, through the page."""
    firefox.execute_script("const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'}); e.click();", selector)


def click_answer(firefox, answer: str) -> str:
    """Clicks `answer` in the page's question dialog; returns the question's text."""
    return wait_for(f"the question (answer {answer!r})", lambda: firefox.execute_script("""
        const dialog = document.querySelector('dialog.ask-dialog[open]');
        const button = dialog?.querySelector(`button[data-answer='${arguments[0]}']`);
        if (!button) return null;
        const text = dialog.textContent;
        button.click();
        return text;""", answer))


def text_of(firefox, selector: str) -> str | None:
    return firefox.execute_script("return document.querySelector(arguments[0])?.textContent ?? null", selector)


def mouse_click(firefox, selector: str) -> None:
    """A real mouse click on the middle of the element matching `selector` (a user gesture, which script
    clicks are not: the clipboard asks for one)."""
    x, y = firefox.execute_script("""const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'});
        const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];""", selector)
    firefox.click_at(x, y)
