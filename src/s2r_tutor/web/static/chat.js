() => {
  /* s2r-tutor chat page behaviour on top of Gradio (passed as `js=` to mount_gradio_app; #15):
   * - each [n] in an answer becomes a button: it opens that answer's sources block, scrolls to the
   *   nth source and flashes it; hovering shows the quote;
   * - each source gets a "在概念卡中查看" button: it opens the Card tab at that section with the
   *   quoted span highlighted (CSS Custom Highlight API: the card's DOM is not rewritten);
   * - a new question scrolls the conversation so that it sits at the top: its answer then shows from
   *   its start, also when the reader had scrolled up (Gradio's autoscroll is off).
   * Messages stay plain Markdown on the server (copy and screen readers get text); this only adds
   * buttons to the rendered page. Text from answers is only ever set through textContent. */
  "use strict";
  if (window.__s2rChat) return;
  window.__s2rChat = true;

  var ROOT = "#s2r-chatbot";
  var CITE = /\[(\d{1,2})\]/g;
  var OPEN_CARD = document.documentElement.lang && document.documentElement.lang.indexOf("en") === 0
    ? "Open in card" : "在概念卡中查看";
  var lastUsers = -1;

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  var CARD_WAIT_MS = 15000;

  async function waitFor(fn, ms) {
    for (var waited = 0; waited <= (ms || 3000); waited += 50) {
      var v = fn();
      if (v) return v;
      await sleep(50);
    }
    return null;
  }

  function sourceItems(row) {
    var thought = row && row.querySelector(".thought");
    return thought ? Array.prototype.slice.call(thought.querySelectorAll("li")) : [];
  }

  // The parts of a source item: section (bold), quote (the text between), chunk id (code).
  function sourceParts(li) {
    var copy = li.cloneNode(true);
    var strong = copy.querySelector("strong"), code = copy.querySelector("code");
    var section = strong ? strong.textContent.trim() : "", chunk = code ? code.textContent.trim() : "";
    [strong, code].concat(Array.prototype.slice.call(copy.querySelectorAll("button")))
      .forEach(function (n) { if (n) n.remove(); });
    var quote = copy.textContent.replace(/^[\s：:]+/, "").trim();
    return { section: section, quote: quote, chunk: chunk };
  }

  function decorateAnswer(row) {
    var items = sourceItems(row);
    row.querySelectorAll(".message-content").forEach(function (content) {
      if (content.closest(".thought")) return;
      var walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
      var nodes = [];
      while (walker.nextNode()) {
        var n = walker.currentNode;
        CITE.lastIndex = 0;
        if (CITE.test(n.nodeValue) && !n.parentElement.closest("button, code, pre, a")) nodes.push(n);
      }
      nodes.forEach(function (node) {
        var text = node.nodeValue, frag = document.createDocumentFragment(), last = 0, m;
        CITE.lastIndex = 0;
        while ((m = CITE.exec(text)) !== null) {
          if (m.index > last) frag.appendChild(document.createTextNode(text.slice(last, m.index)));
          var b = document.createElement("button");
          b.type = "button";
          b.className = "s2r-cite";
          b.setAttribute("data-n", m[1]);
          b.textContent = "[" + m[1] + "]";
          frag.appendChild(b);
          last = CITE.lastIndex;
        }
        if (last < text.length) frag.appendChild(document.createTextNode(text.slice(last)));
        node.parentNode.replaceChild(frag, node);
      });
    });
    // Hover text: the quote, once the sources block has been rendered open.
    row.querySelectorAll(".s2r-cite:not([title])").forEach(function (b) {
      var li = items[Number(b.getAttribute("data-n")) - 1];
      if (li) b.title = sourceParts(li).quote;
    });
    items.forEach(function (li) {
      if (li.querySelector(".s2r-open-card")) return;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "s2r-open-card";
      b.textContent = OPEN_CARD;
      li.appendChild(document.createTextNode(" "));
      li.appendChild(b);
    });
  }

  function scrollBox(el) {
    for (var n = el.parentElement; n; n = n.parentElement) {
      var oy = getComputedStyle(n).overflowY;
      if ((oy === "auto" || oy === "scroll") && n.scrollHeight > n.clientHeight) return n;
    }
    return null;
  }

  // Put the newest question at the top of the conversation's view (and the conversation in view),
  // and keep it there while its answer renders (the log may not be tall enough to scroll that far
  // until the answer is in), until the reader scrolls by hand.
  var anchor = null;

  function release() { anchor = null; }

  function pin() {
    if (!anchor || !anchor.isConnected) return;
    var box = scrollBox(anchor);
    if (!box) return;
    if (!box.__s2rWatched) {
      box.__s2rWatched = true;
      ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (ev) {
        box.addEventListener(ev, release, { passive: true });
      });
    }
    var delta = anchor.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
    if (Math.abs(delta) > 1) box.scrollTop += delta;
  }

  function followNewest(root) {
    var users = root.querySelectorAll("[data-testid='user']");
    if (users.length !== lastUsers) {
      lastUsers = users.length;
      if (!users.length) { anchor = null; return; }
      anchor = users[users.length - 1].closest(".message-row") || users[users.length - 1];
      var r = root.getBoundingClientRect();
      if (r.top < 0 || r.top > window.innerHeight * 0.5) root.scrollIntoView({ block: "start" });
    }
    pin();
  }

  function decorate() {
    var root = document.querySelector(ROOT);
    if (!root) return;
    root.querySelectorAll(".message-row.bot-row").forEach(decorateAnswer);
    followNewest(root);
  }

  async function showSource(cite) {
    var row = cite.closest(".message-row");
    var thought = row && row.querySelector(".thought");
    if (!thought) return;
    var n = Number(cite.getAttribute("data-n"));
    var items = sourceItems(row);
    if (!items.length || items[0].offsetParent === null) {
      var title = thought.querySelector(".title[role='button']");
      if (title) title.click();
    }
    var li = await waitFor(function () {
      var it = sourceItems(row)[n - 1];
      return it && it.offsetParent !== null ? it : null;
    }, 2000);
    if (!li) return;
    decorateAnswer(row);
    row.querySelectorAll(".s2r-source-active").forEach(function (x) { x.classList.remove("s2r-source-active"); });
    li.classList.add("s2r-source-active");
    li.scrollIntoView({ block: "nearest" });
  }

  // Every non-space character of `root`'s text with its node and offset, to find a span that the
  // card's Markdown rendering split over elements.
  function charMap(root) {
    var chars = [], walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      var node = walker.currentNode, v = node.nodeValue;
      for (var i = 0; i < v.length; i++) if (!/\s/.test(v[i])) chars.push({ c: v[i], node: node, i: i });
    }
    return chars;
  }

  function findSpan(root, quote) {
    var chars = charMap(root), hay = chars.map(function (x) { return x.c; }).join("");
    var needle = quote.replace(/\s+/g, "");
    var at = hay.indexOf(needle);
    if (at < 0 && needle.length > 16) { needle = needle.slice(0, 16); at = hay.indexOf(needle); }
    if (at < 0 || !needle) return null;
    var a = chars[at], b = chars[at + needle.length - 1], range = document.createRange();
    range.setStart(a.node, a.i);
    range.setEnd(b.node, b.i + 1);
    return range;
  }

  async function openInCard(parts) {
    var tab = Array.prototype.slice.call(document.querySelectorAll("[role='tab']"))
      .find(function (t) { return t.textContent.indexOf("概念卡") >= 0; });
    if (!tab) return;
    tab.click();
    // A busy machine or a slow phone can take seconds to render the card tab and its section: wait up
    // to CARD_WAIT_MS, or the quote was left unhighlighted (a CI run under load: data-s2r-quote "").
    // The section is looked up and opened again on every poll, not once: under load the tab's late
    // render replaced or closed the accordion we had opened (two CI runs ended on a closed section).
    var lastClick = 0;
    function cardLabel() {
      return Array.prototype.slice.call(document.querySelectorAll("button.label-wrap"))
        .find(function (b) {
          var name = b.querySelector("span");
          return name && name.textContent.trim() === parts.section && b.offsetParent !== null;
        });
    }
    var label = null;
    var range = await waitFor(function () {
      label = cardLabel() || label;
      if (!label || !label.isConnected) return null;
      if (!label.classList.contains("open")) {
        // One click per half second, so a click still being rendered is not undone by the next.
        if (Date.now() - lastClick > 500) { lastClick = Date.now(); label.click(); }
        return null;
      }
      var body = label.parentElement.querySelector("[data-testid='accordion-content']");
      return body && body.offsetParent !== null && findSpan(body, parts.quote);
    }, CARD_WAIT_MS);
    if (!label || !label.isConnected) return;
    var block = label.parentElement;
    if (window.CSS && CSS.highlights && window.Highlight) {
      CSS.highlights.set("s2r-quote", range ? new Highlight(range) : new Highlight());
    }
    document.querySelectorAll(".s2r-card-target").forEach(function (x) { x.classList.remove("s2r-card-target"); });
    block.classList.add("s2r-card-target");
    block.setAttribute("data-s2r-quote", range ? range.toString() : "");
    var target = range ? range.startContainer.parentElement : label;
    target.scrollIntoView({ block: "center" });
  }

  // A toast ("感谢反馈！") belongs to the tab it came from: close it when another tab is opened.
  function closeToasts() {
    document.querySelectorAll(".toast-wrap .toast-close, .toast-body .toast-close").forEach(function (b) { b.click(); });
  }

  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("[role='tab']")) closeToasts();
    var cite = e.target.closest && e.target.closest(ROOT + " .s2r-cite");
    if (cite) { e.preventDefault(); e.stopPropagation(); showSource(cite); return; }
    var open = e.target.closest && e.target.closest(ROOT + " .s2r-open-card");
    if (open) { e.preventDefault(); e.stopPropagation(); openInCard(sourceParts(open.closest("li"))); }
  }, true);

  // On a phone the input's autofocus scrolled the page past the title and the tabs: start at the top.
  if (window.matchMedia && window.matchMedia("(max-width: 640px)").matches) {
    setTimeout(function () {
      var a = document.activeElement;
      if (a && a.closest && a.closest("#s2r-input")) a.blur();
      window.scrollTo(0, 0);
    }, 300);
  }

  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; decorate(); });
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
  decorate();
}
