#!/usr/bin/python3
"""`yiana serve` in a real browser: Debian's headless Chromium driven by Selenium.

    /usr/bin/python3 Scripts/checks/browser.py YIANA OUT_FOLDER   (Scripts/test.sh runs it with axe-core)

Builds a library (a text PDF and a scan recognised as the app's OCR service leaves it: word
boxes, no text layer), indexes it, starts `yiana serve` on a free loopback port, then: types a
query (no Enter) and waits for the results the page's script shows; checks the hit is boxed on
the scan's thumbnail (the overlay image loaded, its boxes where the word is); moves through
the results with the arrow keys; opens the document and checks its pages are drawn with the
hit boxed; checks the address can be bookmarked; resolves a conflict copy with the merge
button (the plan first, then done); drops two PDFs on the import page (one imported, one
refused with its reason) and opens the imported one; deletes a document and brings it back
from "Recently deleted"; browses by folder and tag, sorts, at 1280 and 390 px; renames,
retags and moves a document from its page and deletes it with Undo; tags two at once; opens
and renames a document by keyboard alone; recognises a scan, repairs a damaged document (the
plan first) and downloads an evicted one with the pages' buttons; follows a conflict copy, an
arrival with no watcher, and one under `serve --watch`, without a reload. Every
page is audited with axe-core (0 serious or critical violations). Screenshots go to the output
folder (always one of the result, and one at a failure). Prints 'N passed, N failed' and
exits 1 on a failure.

Usage: Scripts/checks/browser.py YIANA_BINARY [OUTPUT_FOLDER]   (run by Scripts/test.sh with
.build/axe-venv/bin/python: Debian's python3-selenium and PyPI's axe-selenium-python)
"""
import os, re, subprocess, sys, tempfile, time, urllib.parse, urllib.request
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from axe_selenium_python import Axe

started = time.time()
yiana = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="yiana-browser-")
os.makedirs(out, exist_ok=True)
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = tempfile.mkdtemp(prefix="yiana-browser-lib-")
env = dict(os.environ, XDG_STATE_HOME=f"{work}/state", XDG_CACHE_HOME=f"{work}/cache")
lib = f"{work}/Yiana"

def yiana_run(*args):
    subprocess.run([yiana, *args], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

yiana_run("import", "--library", lib, f"{root}/SampleDocs/pdfs/Bank statement reminder.pdf", f"{root}/SampleDocs/scans/Clinic letter (scan).pdf",
          f"{root}/SampleDocs/scans/Eye clinic appointment (scan).pdf")
yiana_run("ocr", "--library", lib, "--all", "--no-text-layer")
yiana_run("extract", "--library", lib, "--all")
yiana_run("move", "--library", lib, "Eye clinic appointment (scan)", "--to", "Letters")
yiana_run("edit", "--library", lib, "Clinic letter (scan)", "--tag", "clinic")
# A scan nobody recognised yet, for the health page's button.
yiana_run("import", "--library", lib, f"{root}/SampleDocs/scans/Hardware receipt (scan).pdf")
# A conflict: the phone's copy of the bank letter, with another title (edited by yiana, so it
# is this machine's own write and not "still arriving").
import shutil
shutil.copy(f"{lib}/Bank statement reminder.yianazip", f"{lib}/Bank statement reminder.sync-conflict-20261125-101010-ABCDEF7.yianazip")
yiana_run("edit", "--library", lib, "Bank statement reminder.sync-conflict-20261125-101010-ABCDEF7", "--title", "Bank reminder (phone)")
yiana_run("index", "--library", lib)
server = subprocess.Popen([yiana, "serve", "--library", lib, "--listen", "127.0.0.1:0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = server.stdout.readline()
match = re.search(r"http://127\.0\.0\.1:\d+/", line)
if not match:
    print("yiana serve did not start: " + line)
    sys.exit(1)
base = match.group(0)

options = webdriver.ChromeOptions()
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
             "--no-first-run", "--disable-background-networking", "--disable-sync", "--disable-component-update",
             "--disable-default-apps", "--metrics-recording-only", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
    options.add_argument(flag)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 20)
passed, failed = 0, 0

last = time.time()
print(f"the library, its server and the browser ready in {last - started:.1f} s")

def check(name, condition):
    """Counts and prints a check, with the seconds since the one before (where the time goes)."""
    global passed, failed, last
    took = f"{time.time() - last:5.1f} s"
    last = time.time()
    if condition:
        passed += 1
        print(f"ok    {took}  {name}")
    else:
        failed += 1
        shot = os.path.join(out, re.sub(r"\W+", "-", name)[:80] + ".png")
        driver.save_screenshot(shot)
        print(f"FAIL  {took}  {name} (screenshot {shot})")

def audit(name):
    """axe-core on the page shown: its serious and critical violations, none expected."""
    axe = Axe(driver)
    axe.inject()
    found = [v for v in axe.run()["violations"] if v.get("impact") in ("serious", "critical")]
    check(f"accessible (axe-core): {name}", not found)
    for violation in found:
        print(f"      {violation['id']} ({violation['impact']}): {violation['help']} — {[n['target'] for n in violation['nodes']][:3]}")

def loaded(element):
    return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", element)

def listed():
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "ol.documents h3 a")]

def click(by, value):
    """Clicks what `by` and `value` find, found again when the page drew it anew in between: the
    start page draws its list and outline again when the index changes (its event stream)."""
    def clicked(d):
        try:
            d.find_element(by, value).click()
            return True
        except StaleElementReferenceException:
            return False
    wait.until(clicked)

def images_settled():
    """Every image of a document's page loaded before it is renamed or deleted from there: a page
    image still loading (lazily, as a scroll brought it into view) when the document goes from
    its old name is rightly a 404, which the console check would then report."""
    driver.execute_script("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    wait.until(lambda d: d.execute_script("return [...document.images].every(i => i.complete)"))

try:
    # Browsing without a query: the library's documents, its folders and tags, each a link.
    driver.get(base)
    check("the start page lists every document", sorted(listed()) == ["Bank reminder (phone)", "Bank statement reminder", "Clinic letter (scan)",
                                                                      "Eye clinic appointment (scan)", "Hardware receipt (scan)"])
    states = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "ol.documents .status")]
    check("a conflict copy says so in the list", "in conflict" in states)
    driver.save_screenshot(os.path.join(out, "browse.png"))
    click(By.LINK_TEXT, "Letters")
    wait.until(lambda d: "folder=Letters" in d.current_url)
    check("a folder of the tree narrows the list to it", listed() == ["Eye clinic appointment (scan)"])
    click(By.LINK_TEXT, "All documents")
    wait.until(lambda d: "folder=" not in d.current_url)
    click(By.CSS_SELECTOR, "nav.outline a.tag")
    wait.until(lambda d: "tag=clinic" in d.current_url)
    check("a tag narrows the list to what carries it", listed() == ["Clinic letter (scan)"])
    driver.get(base + "?sort=title")
    check("sorted by title, the address kept in step", listed()[0] == "Bank reminder (phone)" and "sort=title" in driver.current_url)
    driver.set_window_size(390, 844)
    driver.get(base)
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    check("at 390 px wide the start page fits the screen", wide <= 391 and len(listed()) == 5)
    driver.save_screenshot(os.path.join(out, "browse-390.png"))
    driver.set_window_size(1280, 1000)
    # Each page listens to /events; a page left behind (kept for the Back button) must let go of
    # its connection, or the seventh page waits a minute for one (six to a server at most).
    took = []
    for n in range(8):
        begun = time.time()
        driver.get(base + f"?page-in-a-row={n}")
        took.append(time.time() - begun)
    check("eight pages in a row each open at once (none waits for a connection)", max(took) < 10 and len(listed()) == 5)
    if max(took) >= 10:
        print(f"      seconds per page: {[round(t, 1) for t in took]}")

    driver.get(base)
    box = driver.find_element(By.NAME, "q")
    box.send_keys("okafor")  # no Enter: the results come as one types
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results ol.hits > li"))
    titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results ol.hits h2")]
    check("results appear as one types", titles == ["Clinic letter (scan)"])
    check("the address follows the query (bookmarkable)", urllib.parse.urlparse(driver.current_url).query == "q=okafor&tag=&folder=&since=&until=&sort=relevance")
    thumb = driver.find_element(By.CSS_SELECTOR, ".thumb img:not(.boxes)")
    overlay = driver.find_element(By.CSS_SELECTOR, ".thumb img.boxes")
    driver.execute_script("arguments[0].scrollIntoView()", overlay)
    wait.until(lambda d: loaded(thumb) and loaded(overlay))
    check("the scan's thumbnail and its hit overlay are drawn", loaded(thumb) and loaded(overlay))
    svg = urllib.request.urlopen(urllib.parse.urljoin(base, overlay.get_attribute("src"))).read().decode()
    rects = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)"', svg)
    check("the hit is boxed where the word is on the scan", len(rects) == 2 and all(0.1 < float(x) < 0.6 and 0.3 < float(y) < 0.5 for x, y in rects))
    size = driver.execute_script("const a = arguments[0].getBoundingClientRect(), b = arguments[1].getBoundingClientRect();"
                                 "return [a.width, a.height, b.width, b.height]", thumb, overlay)
    check("the overlay covers the thumbnail exactly", abs(size[0] - size[2]) < 1 and abs(size[1] - size[3]) < 1)
    driver.save_screenshot(os.path.join(out, "search.png"))

    # The date filter: created from a day in 2099, nothing; emptied again, the result is back.
    since = driver.find_element(By.NAME, "since")
    driver.execute_script("arguments[0].value = '2099-01-01'; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", since)
    wait.until(lambda d: "No document matches" in d.find_element(By.ID, "results").text)
    check("the date filter narrows the results as one sets it", "since=2099-01-01" in driver.current_url)
    driver.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", since)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results ol.hits > li"))
    box.send_keys(Keys.ARROW_DOWN)
    active = driver.switch_to.active_element
    check("the arrow keys move to the first result", active.tag_name == "a" and active.text == "Clinic letter (scan)")
    active.send_keys(Keys.ENTER)
    wait.until(lambda d: "/doc?" in d.current_url)
    page = driver.find_element(By.CSS_SELECTOR, "#page-1 img:not(.boxes)")
    boxes = driver.find_element(By.CSS_SELECTOR, "#page-1 img.boxes")
    wait.until(lambda d: loaded(page) and loaded(boxes))
    check("the document's page is drawn with the hit boxed", loaded(page) and loaded(boxes) and page.get_attribute("currentSrc").find("page-image") >= 0)
    check("the PDF can be downloaded", driver.find_element(By.LINK_TEXT, "Download the PDF").get_attribute("href").startswith(base + "pdf?"))
    driver.save_screenshot(os.path.join(out, "document.png"))

    # The people the app shows for a scanned letter, found by `yiana extract`, on its page.
    driver.get(base + "doc?path=" + urllib.parse.quote("Letters/Eye clinic appointment (scan).yianazip"))
    rows = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in driver.find_elements(By.CSS_SELECTOR, "table.people tbody tr")]
    check("a document's page lists its people, page by page, with their source",
          len(rows) == 1 and rows[0][0] == "1" and rows[0][1].startswith("Eleanor Hartley, 14/06/1952, 27 Orchard Way") and rows[0][3] == "extracted")
    driver.save_screenshot(os.path.join(out, "people.png"))

    driver.get(base + "?q=lefevre")
    titles = sorted(e.text for e in driver.find_elements(By.CSS_SELECTOR, "ol.hits h2"))
    check("a bookmarked search shows its results without the script", titles == ["Bank reminder (phone)", "Bank statement reminder"])
    # Two words, not in the text's order: the form sends the space as "+" (as every browser's
    # form does), which is a space, not a word "reminder+bank".
    driver.get(base + "?q=reminder+bank")
    titles = sorted(e.text for e in driver.find_elements(By.CSS_SELECTOR, "ol.hits h2"))
    check("a form's '+' is a space: two words in any order", titles == ["Bank reminder (phone)", "Bank statement reminder"])
    box = driver.find_element(By.NAME, "q")
    box.clear()
    box.send_keys("statement lefevre")
    wait.until(lambda d: "statement+lefevre" in d.current_url and d.find_elements(By.CSS_SELECTOR, "#results ol.hits > li"))
    titles = sorted(e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results ol.hits h2"))
    check("two words typed find what holds both, wherever they are", titles == ["Bank reminder (phone)", "Bank statement reminder"])

    # The conflict, resolved with the merge button: the plan first, then done.
    driver.get(base + "conflicts")
    check("the conflicts page shows both versions", len(driver.find_elements(By.CSS_SELECTOR, ".conflict .version")) == 2
          and "Bank reminder (phone)" in driver.find_element(By.CSS_SELECTOR, "table.diff").text)
    driver.find_element(By.LINK_TEXT, "merge…").click()
    wait.until(lambda d: "/conflicts/plan" in d.current_url)
    check("the merge plan is shown before anything is done", "remove-copy" in driver.page_source
          and os.path.exists(f"{lib}/Bank statement reminder.sync-conflict-20261125-101010-ABCDEF7.yianazip"))
    driver.find_element(By.XPATH, "//button[text()='Do it']").click()
    wait.until(lambda d: "Done: merge" in d.page_source)
    check("the merge button resolves the conflict", not os.path.exists(f"{lib}/Bank statement reminder.sync-conflict-20261125-101010-ABCDEF7.yianazip"))
    driver.save_screenshot(os.path.join(out, "resolved.png"))
    driver.get(base + "conflicts")
    check("no conflict is left", "No conflicts" in driver.page_source)

    # Import by drag and drop: the file is given to a hidden file input (a browser lets a
    # script read only files a person chose), and a drop event carrying it is sent to the
    # folder, as a drag from the desktop delivers it.
    driver.get(base + "import")
    zone = driver.find_element(By.CSS_SELECTOR, 'li.drop[data-folder=""]')
    chooser = driver.execute_script("const i = document.createElement('input'); i.type = 'file'; i.multiple = true;"
                                    "i.id = 'dragged'; document.body.appendChild(i); return i")
    chooser.send_keys(f"{root}/SampleDocs/pdfs/Flow control paper.pdf\n{root}/SampleDocs/pdfs/Encrypted letter.pdf")
    driver.execute_script("""
        const files = document.getElementById('dragged').files, zone = arguments[0], data = new DataTransfer();
        for (const file of files) data.items.add(file);
        for (const type of ['dragenter', 'dragover', 'drop'])
          zone.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data}));""", zone)
    wait.until(lambda d: len(zone.find_elements(By.CSS_SELECTOR, "ul.outcomes li:not(.pending)")) == 2)
    outcomes = [e.text for e in zone.find_elements(By.CSS_SELECTOR, "ul.outcomes li")]
    check("two PDFs dropped on the library: each imported or refused, with its reason", len(outcomes) == 2
          and outcomes[0].startswith("Flow control paper.pdf: imported") and os.path.exists(f"{lib}/Flow control paper.yianazip")
          and outcomes[1].startswith("Encrypted letter.pdf: not imported") and not os.path.exists(f"{lib}/Encrypted letter.yianazip"))
    driver.save_screenshot(os.path.join(out, "import.png"))
    driver.find_element(By.LINK_TEXT, "Flow control paper.yianazip").click()
    wait.until(lambda d: "/doc?" in d.current_url)
    check("the imported document opens from its outcome", "Flow control paper" in driver.title)
    # A document deleted (as sync carries another device's deletion), noticed by `yiana index`,
    # listed on "Recently deleted" with its first page drawn from the kept bytes, and put back
    # by its button: the same bytes at the same path.
    # (The document's own page is left first: its pages would be asked for after it is gone.)
    driver.get(base + "deleted")
    check("nothing is lost yet", "Nothing lost" in driver.page_source)
    with open(f"{lib}/Flow control paper.yianazip", "rb") as f:
        flow = f.read()
    os.remove(f"{lib}/Flow control paper.yianazip")
    yiana_run("index", "--library", lib)
    driver.get(base)
    driver.find_element(By.LINK_TEXT, "Recently deleted").click()
    wait.until(lambda d: "/deleted" in d.current_url)
    preview = driver.find_element(By.CSS_SELECTOR, "ol.deleted li img")
    wait.until(lambda d: loaded(preview))
    check("a deleted document is listed with its first page from the kept bytes", "Flow control paper.yianazip" in driver.page_source and loaded(preview))
    driver.save_screenshot(os.path.join(out, "deleted.png"))
    driver.find_element(By.XPATH, "//ol[contains(@class,'deleted')]//button[text()='Restore']").click()
    wait.until(lambda d: "Restored" in d.title)
    with open(f"{lib}/Flow control paper.yianazip", "rb") as f:
        check("its Restore button puts the same bytes back", f.read() == flow)
    driver.find_element(By.LINK_TEXT, "Recently deleted").click()
    wait.until(lambda d: "Nothing lost" in d.page_source)
    check("nothing is left to restore", "Nothing lost" in driver.page_source)
    # A document changed from its page, as a person would: at 390 px wide, by touch.
    driver.set_window_size(390, 844)
    driver.get(base + "doc?path=" + urllib.parse.quote("Clinic letter (scan).yianazip"))
    images_settled()
    driver.find_element(By.CSS_SELECTOR, "details.edit summary").click()
    for name, value in (("title", "okafor letter"), ("tags", "clinic, gp"), ("folder", "Letters")):
        field = driver.find_element(By.CSS_SELECTOR, f"form.edit input[name={name}]")
        field.clear()
        field.send_keys(value)
    driver.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()
    wait.until(lambda d: "saved=1" in d.current_url)
    check("a new title, tags and folder saved from the page: the file named as the app names it",
          "Letters/Okafor_Letter.yianazip" in urllib.parse.unquote(driver.current_url) and driver.find_element(By.TAG_NAME, "h1").text == "okafor letter"
          and "Saved." in driver.page_source and os.path.exists(f"{lib}/Letters/Okafor_Letter.yianazip"))
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    check("the document's page fits 390 px", wide <= 391)
    driver.save_screenshot(os.path.join(out, "edited-390.png"))
    driver.get(base + "?tag=gp")
    check("the list follows at once (the index updated by the save)", listed() == ["okafor letter"])
    driver.set_window_size(1280, 1000)
    driver.get(base + "doc?path=" + urllib.parse.quote("Letters/Okafor_Letter.yianazip"))
    images_settled()
    driver.find_element(By.CSS_SELECTOR, "details.edit summary").click()
    driver.find_element(By.CSS_SELECTOR, "form.delete button").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "button.undo"))
    check("deleting is one click, with Undo on the spot", not os.path.exists(f"{lib}/Letters/Okafor_Letter.yianazip"))
    driver.save_screenshot(os.path.join(out, "deleted.png"))
    driver.find_element(By.CSS_SELECTOR, "button.undo").click()
    wait.until(lambda d: "restored=1" in d.current_url)
    check("Undo brings it back where it was", os.path.exists(f"{lib}/Letters/Okafor_Letter.yianazip") and "Restored" in driver.page_source)

    # Several documents at once: two ticked and tagged in one go.
    driver.get(base)
    boxes = driver.find_elements(By.CSS_SELECTOR, "ol.documents input[type=checkbox]")
    boxes[0].click()
    boxes[1].click()
    driver.find_element(By.CSS_SELECTOR, "fieldset.bulk input[name=value]").send_keys("batch")
    driver.find_element(By.CSS_SELECTOR, "fieldset.bulk button[value=tag]").click()
    wait.until(lambda d: "done" in d.find_element(By.TAG_NAME, "h1").text)
    check("two ticked documents tagged at once", driver.find_element(By.TAG_NAME, "h1").text == "2 of 2 done")
    driver.get(base + "?tag=batch")
    check("both carry the tag in the list", len(listed()) == 2)

    # By keyboard alone: Tab to the first document of the list, Enter opens it; Tab to its
    # edit form, Enter opens it, a new title typed and saved with Enter. Focus is shown all along.
    from selenium.webdriver.common.action_chains import ActionChains
    def tab_to(found, limit=80):
        """Tabs until `found(the focused element)`. The start page's list is drawn again when the
        index changes (its event stream), which can make the element just asked about stale:
        tabbing goes on from where the focus is."""
        driver.find_element(By.TAG_NAME, "body").click()
        for _ in range(limit):
            ActionChains(driver).send_keys(Keys.TAB).perform()
            try:
                element = driver.switch_to.active_element
                if found(element):
                    return element
            except StaleElementReferenceException:
                pass
        return None
    def focus_shown(element):
        return driver.execute_script("const s = getComputedStyle(arguments[0]); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0"
                                     " || s.boxShadow !== 'none'", element)
    for attempt in range(3):  # the list drawn again between finding the link and pressing Enter: again
        try:
            driver.get(base + "?sort=title")
            first = tab_to(lambda e: e.tag_name == "a" and e.text == listed()[0])
            shown = first is not None and focus_shown(first)
            first.send_keys(Keys.ENTER)
            break
        except StaleElementReferenceException:
            if attempt == 2:
                raise
    check("by keyboard: Tab reaches the first document, its focus shown", shown)
    wait.until(lambda d: "/doc?" in d.current_url)
    images_settled()
    summary = tab_to(lambda e: e.tag_name == "summary")
    summary.send_keys(Keys.ENTER)
    title = tab_to(lambda e: e.get_attribute("name") == "title")
    title.send_keys(Keys.CONTROL, "a")
    title.send_keys("Phone reminder", Keys.ENTER)
    wait.until(lambda d: "saved=1" in d.current_url)
    check("by keyboard: a document's title changed and saved without a mouse", driver.find_element(By.TAG_NAME, "h1").text == "Phone reminder")

    # Two libraries in one server: the second's search page, typed into, searches it alone
    # and keeps its own address.
    other = f"{work}/Second"
    yiana_run("import", "--library", other, f"{root}/SampleDocs/pdfs/Filled form.pdf")
    yiana_run("index", "--library", other)
    both = subprocess.Popen([yiana, "serve", "--library", lib, "--library", other, "--listen", "127.0.0.1:0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base_both = re.search(r"http://127\.0\.0\.1:\d+/", both.stdout.readline()).group(0)
        driver.get(base_both)
        driver.find_element(By.LINK_TEXT, "Second").click()
        wait.until(lambda d: d.current_url.endswith("/Second/"))
        driver.find_element(By.NAME, "q").send_keys("form")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results ol.hits > li"))
        titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results ol.hits h2")]
        check("a second library's page searches it alone, at its own address", titles == ["Filled form"]
              and urllib.parse.urlparse(driver.current_url).path == "/Second/")
    finally:
        both.terminate()
        both.wait()

    # A problem fixed with its button: the scan nobody recognised, from the health page.
    driver.get(base + "health")
    driver.find_element(By.XPATH, "//button[text()='Recognise now']").click()
    WebDriverWait(driver, 120).until(lambda d: "Done:" in d.page_source or "Failed:" in d.page_source)
    check("the health page's Recognise button runs OCR, its progress on the page", "Done: 1 recognised" in driver.page_source)
    driver.get(base + "?q=masking")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "ol.hits h2"))
    check("and the scan is found by a word only in it", [e.text for e in driver.find_elements(By.CSS_SELECTOR, "ol.hits h2")] == ["Hardware receipt (scan)"])

    # A damaged document repaired from the pages: the dry run's plan first, then the job.
    with open(f"{lib}/Flow control paper.yianazip", "rb") as f:
        bank = f.read()
    with open(f"{lib}/Damaged letter.yianazip", "wb") as f:
        f.write(bank[:-22])  # the end of its central directory lost
    time.sleep(5.5)  # a damaged file is taken for one a sync program is still writing for 5 s
    indexed = subprocess.run([yiana, "index", "--library", lib], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check("the index says a document is damaged (exit 1)", indexed.returncode == 1)
    driver.get(base + "health")
    driver.find_element(By.LINK_TEXT, "Repair…").click()
    wait.until(lambda d: "/repair" in d.current_url)
    check("the repair plan is shown first, nothing written", "Damaged letter.yianazip: would be repaired (salvage)" in driver.find_element(By.TAG_NAME, "main").text
          and os.path.getsize(f"{lib}/Damaged letter.yianazip") == len(bank) - 22)
    driver.save_screenshot(os.path.join(out, "repair-plan.png"))
    driver.find_element(By.XPATH, "//button[text()='Repair 1 document']").click()
    WebDriverWait(driver, 60).until(lambda d: "Done:" in d.page_source or "Failed:" in d.page_source)
    verified = subprocess.run([yiana, "verify", "--library", lib, "Damaged letter.yianazip"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check("the repair button repairs it (the job's end shown without a reload)", "Done: 1 document repaired" in driver.page_source and verified.returncode == 0)

    # An evicted document downloaded with the health page's button.
    yiana_run("cloud", "init", "--library", lib, f"{work}/cloud", "--device", "laptop")
    yiana_run("evict", "--library", lib, "Damaged letter")
    driver.get(base + "health")
    driver.find_element(By.XPATH, "//button[text()='Download them']").click()
    WebDriverWait(driver, 60).until(lambda d: "Done:" in d.page_source or "Failed:" in d.page_source)
    check("the download button brings an evicted document back", "1 document downloaded" in driver.page_source and os.path.exists(f"{lib}/Damaged letter.yianazip"))

    # Live without a watcher: a conflict copy raises the count in the navigation, and a new
    # document appears in the open list (the server's own scan), neither with a reload.
    driver.get(base)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "ol.documents h3 a"))
    before = len(listed())
    badge = driver.find_element(By.ID, "conflict-count")
    check("no conflict counted in the navigation", not badge.is_displayed())
    time.sleep(1)
    dropped = time.time()
    shutil.copy(f"{lib}/Damaged letter.yianazip", f"{lib}/Damaged letter (Bob's conflicted copy 2026-11-26).yianazip")
    shutil.copy(f"{lib}/Flow control paper.yianazip", f"{lib}/Arrived.part")
    os.rename(f"{lib}/Arrived.part", f"{lib}/Arrived by sync.yianazip")
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "conflict-count").text == "1")
    check("a conflict copy raises the count in the navigation without a reload", driver.find_element(By.ID, "conflict-count").is_displayed())
    WebDriverWait(driver, 30).until(lambda d: len(listed()) == before + 2)
    print(f"      arrival to the open list with no watcher (the server's own scan): {time.time() - dropped:.2f} s")
    check("with no watcher, an arrival appears in the open list (the server's own scan)", True)
    os.remove(f"{lib}/Damaged letter (Bob's conflicted copy 2026-11-26).yianazip")

    # Live: under `serve --watch`, a document dropped into the folder appears in the open list.
    live = f"{work}/Live"
    yiana_run("import", "--library", live, f"{root}/SampleDocs/pdfs/Filled form.pdf")
    yiana_run("index", "--library", live)
    watching = subprocess.Popen([yiana, "serve", "--library", live, "--watch", "--listen", "127.0.0.1:0"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base_live = re.search(r"http://127\.0\.0\.1:\d+/", watching.stdout.readline()).group(0)
        driver.get(base_live)
        wait.until(lambda d: listed() == ["Filled form"])
        time.sleep(1.5)  # the page's event stream open, the watcher started
        import shutil as copier
        dropped = time.time()
        copier.copy(f"{lib}/Flow control paper.yianazip", f"{live}/Arrived.yianazip.part")
        os.rename(f"{live}/Arrived.yianazip.part", f"{live}/Arrived.yianazip")  # as a sync program places a file
        WebDriverWait(driver, 30).until(lambda d: len(listed()) == 2)
        seconds = time.time() - dropped
        check("a document dropped into the folder appears in the open list without a reload", True)
        print(f"      arrival to the open list: {seconds:.2f} s")
    finally:
        watching.terminate()
        watching.wait()

    # Every kind of page, audited.
    for name, path in (("the start page", ""), ("search results", "?q=okafor"), ("a document", "doc?path=" + urllib.parse.quote("Letters/Okafor_Letter.yianazip")),
                       ("health", "health"), ("jobs", "jobs"), ("repair", "repair"), ("conflicts", "conflicts"), ("import", "import"), ("recently deleted", "deleted")):
        driver.get(base + path)
        audit(name)
    driver.set_window_size(390, 844)
    driver.get(base)
    audit("the start page at 390 px")
    small = driver.execute_script("""return [...document.querySelectorAll('header nav a, nav.outline a, button, summary, ol.documents h3 a, input')]
        .map(e => [e.textContent.trim() || e.getAttribute('aria-label') || e.tagName, e.getBoundingClientRect().height])
        .filter(([_, h]) => h > 0 && h < 44)""")
    check("at 390 px every control is at least 44 px tall, for a finger", not small)
    if small:
        print(small[:10])
    driver.set_window_size(1280, 1000)

    # The refused import's 422 is the answer the page shows; Chromium logs every 4xx it fetches.
    logs = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"
            and not (entry.get("source") == "network" and "/import?folder=&name=Encrypted%20letter.pdf" in entry.get("message", "") and "422" in entry.get("message", ""))]
    check("no error in the browser's console (CSP included)", not logs)
    if logs:
        print(logs)
except Exception as error:  # a step that could not run is a failure, with its screenshot
    check(f"browser session ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})", False)
finally:
    driver.quit()
    server.terminate()
    server.wait()

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
