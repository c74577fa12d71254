"""The HTML page of a recorded backward in a real browser: headless Chromium, driven by Selenium.

The test clicks "next" k times and reads the DOM: the position line, the one frame shown,
the popped op in the row beside it and, with Graphviz, the highlighted node in the SVG.
A screenshot goes to out/tests/.  It needs Chromium with its driver (Debian: apt-get
install chromium chromium-driver; .ci/run installs them) and Selenium (the test extra);
without them it is skipped, saying which is missing.  test_pictures_page.py checks the
page's content without a browser.
"""

import os
import shutil
import time
from pathlib import Path

import pytest
from picture_scenes import diamond_recording, second_derivative_recording, without_dot

from pictures.frames import COLORS, popped_id

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="Selenium is not installed (pip install -e '.[test]' installs it)")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "out" / "tests"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def wait_for_the_ci_install(limit=900.0):
    """Under .ci/run, which installs Chromium while the suite runs, wait until its install has
    ended (the file GENGRAD_CHROMIUM_INSTALLED names exists), at most `limit` seconds."""
    done = os.environ.get("GENGRAD_CHROMIUM_INSTALLED")
    deadline = time.monotonic() + limit
    while done and not os.path.exists(done) and time.monotonic() < deadline:
        time.sleep(1.0)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium, or a skip that says what is missing."""
    wait_for_the_ci_install()
    binary = next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        found = (("Chromium", binary), ("chromedriver", driver_path))
        missing = " and ".join(name for name, path in found if path is None)
        pytest.skip(f"{missing} not installed (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=webdriver.ChromeService(driver_path), options=options)
    except WebDriverException as error:
        pytest.skip(f"Chromium would not start: {str(error).splitlines()[0]}")
    yield driver
    driver.quit()


def open_page(browser, steps, path):
    steps.write_html(str(path))
    browser.get(path.as_uri())
    return browser.find_element(By.ID, "steps")


def shown(root, selector):
    """The elements matching `selector` that the browser displays."""
    return [e for e in root.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()]


def check_shows(root, steps, pass_number, step):
    """The page shows frame `step` of pass `pass_number`, and the row beside it names its op."""
    p = steps.passes[pass_number - 1]
    frame, = shown(root, "figure.frame")
    assert frame.get_attribute("data-pass") == str(pass_number)
    assert frame.get_attribute("data-step") == str(step)
    row, = shown(root, "tbody.row")
    op = p.steps[step - 1].title if step else "(start)"
    assert row.find_element(By.CSS_SELECTOR, "td.popped").text == op
    return frame


@pytest.mark.parametrize("graphviz", [True, False], ids=["svg", "text"])
@pytest.mark.parametrize("k", [1, 3, 4])
def test_clicking_next_k_times_shows_step_k(browser, tmp_path, monkeypatch, graphviz, k):
    if not graphviz:
        without_dot(monkeypatch)
    elif shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' is not installed")
    steps = diamond_recording()
    root = open_page(browser, steps, tmp_path / "page.html")
    check_shows(root, steps, 1, 0)
    for _ in range(k):
        root.find_element(By.CSS_SELECTOR, "button.next").click()
    assert root.get_attribute("data-current") == str(k)
    assert root.find_element(By.CSS_SELECTOR, ".position").text == f"step {k} of 4"
    frame = check_shows(root, steps, 1, k)
    if graphviz:                                      # the popped op's node, red, in the picture shown
        node = frame.find_element(By.ID, popped_id(steps.passes[0], k))
        assert node.is_displayed() and steps[k - 1].function.name in node.text
        assert node.find_element(By.CSS_SELECTOR, "path").get_attribute("fill") == COLORS["popped"]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / f"backward_page_step_{k}.png"
        assert browser.save_screenshot(str(shot)) and os.path.getsize(shot) > 10_000
    else:
        assert f"step {k} of 4: popped {steps[k - 1].title}" in frame.text


def test_previous_the_slider_and_the_ends_of_a_two_pass_page(browser, tmp_path, monkeypatch):
    without_dot(monkeypatch)                          # (text frames: quick to write)
    steps = second_derivative_recording()
    first, second = steps.passes
    root = open_page(browser, steps, tmp_path / "two_passes.html")
    root.find_element(By.CSS_SELECTOR, "button.previous").click()          # at the start: stays
    check_shows(root, steps, 1, 0)
    for _ in range(len(first.steps) + 2):
        root.find_element(By.CSS_SELECTOR, "button.next").click()
    check_shows(root, steps, 2, 1)                    # past the first pass's end: the second pass
    position = root.find_element(By.CSS_SELECTOR, ".position").text
    assert position == f"pass 2 of 2, step 1 of {len(second.steps)}"
    root.find_element(By.CSS_SELECTOR, "button.previous").click()
    check_shows(root, steps, 2, 0)
    last = len(first.steps) + len(second.steps) + 1
    browser.execute_script(
        "var s = arguments[0]; s.value = arguments[1]; s.dispatchEvent(new Event('input'));",
        root.find_element(By.CSS_SELECTOR, ".slider"), last)
    check_shows(root, steps, 2, len(second.steps))
    root.find_element(By.CSS_SELECTOR, "button.next").click()              # at the end: stays
    check_shows(root, steps, 2, len(second.steps))
