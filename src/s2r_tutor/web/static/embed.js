/* s2r-tutor /embed widget. Untrusted text (questions, card quotes) only ever goes into the page
 * through textContent or createTextNode. The one exception is the answer's Markdown: it is rendered
 * by the vendored marked with raw HTML escaped first, then sanitised by DOMPurify to a short list of
 * structural tags with no attributes (see renderMarkdown). */
(function () {
  "use strict";

  var TEXT = {
    zh: {
      title: "Sim2Real 学习助手", subtitle: "回答均引用概念卡 04-08", send: "发送",
      placeholder: "输入关于 Sim2Real 的问题，回车发送", thinking: "正在查找卡片内容…",
      sources: "来源", original: "原文：", followups: "接着问", error: "出错了：", network: "无法连接到学习助手。",
      clear: "清空对话", source: "来源", openCard: "在概念卡中查看",
      examples: ["什么是 Sim2Real？", "强化学习和 Sim2Real 有什么区别？", "客户说实验室里走得很好，到工厂就容易摔，怎么解释？"]
    },
    en: {
      title: "Sim2Real study assistant", subtitle: "Every answer cites concept card 04-08", send: "Send",
      placeholder: "Ask about Sim2Real, Enter to send", thinking: "Looking through the card…",
      sources: "Sources", original: "Chinese original: ", followups: "Follow up", error: "Error: ", network: "Cannot reach the study assistant.",
      clear: "Clear", source: "Source", openCard: "Open in card",
      examples: ["What is Sim2Real?", "How is reinforcement learning different from Sim2Real?", "What is the reality gap?"]
    }
  };
  // The server's labels (s2r_tutor/i18n.py, the chat's own) when the page carries them (#17); the
  // table above is the fallback, kept equal to them by tests/test_i18n.py.
  var given = document.getElementById("s2r-labels");
  if (given) { try { TEXT = JSON.parse(given.textContent); } catch (e) { /* keep the built-in table */ } }
  var params = new URLSearchParams(window.location.search);
  var lang = params.get("lang") === "en" ? "en" : "zh";
  // The portal's signed reader token (?reader_token=): kept in this page's memory only and sent as
  // a Bearer header on its own API calls; required when the server has a reader secret set.
  var readerToken = params.get("reader_token") || "";
  var t = TEXT[lang];
  var API = "api/ask";          // relative: /embed -> /api/ask, also behind a path prefix
  var MAX_HISTORY = 12;         // messages sent back as context (keeps requests small)

  var log = document.getElementById("s2r-log");
  var form = document.getElementById("s2r-form");
  var input = document.getElementById("s2r-input");
  var send = document.getElementById("s2r-send");
  var examples = document.getElementById("s2r-examples");
  var history = [];
  var busy = false;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Markdown through vendored marked (GFM: tables, lists) and DOMPurify (#15). Raw HTML in an answer
  // is shown as text (`<` and `&` escaped before parsing), links become their text, images their
  // alt text, and DOMPurify keeps only the structural tags below, with no attributes.
  var ALLOWED_TAGS = ["p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "hr",
                      "table", "thead", "tbody", "tr", "th", "td", "h1", "h2", "h3", "h4", "h5", "h6"];
  var md = window.marked && new window.marked.Marked({ gfm: true, breaks: false });
  if (md) {
    md.use({ renderer: {
      link: function (token) { return this.parser.parseInline(token.tokens); },
      image: function (token) { return escapeHtml(token.text || ""); },
      html: function (token) { return escapeHtml(token.text || ""); }
    } });
  }

  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // Each [n] (outside code) becomes a button that opens its source; built with DOM calls on the
  // already-sanitised tree.
  function linkCitations(root) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), nodes = [];
    while (walker.nextNode()) {
      if (/\[\d{1,2}\]/.test(walker.currentNode.nodeValue) && !walker.currentNode.parentNode.closest("code, pre")) {
        nodes.push(walker.currentNode);
      }
    }
    nodes.forEach(function (node) {
      var text = node.nodeValue, re = /\[(\d{1,2})\]/g, last = 0, m, frag = document.createDocumentFragment();
      while ((m = re.exec(text)) !== null) {
        if (m.index > last) frag.appendChild(document.createTextNode(text.slice(last, m.index)));
        var b = el("button", "s2r-cite", "[" + m[1] + "]");
        b.type = "button";
        b.setAttribute("data-n", m[1]);
        frag.appendChild(b);
        last = re.lastIndex;
      }
      if (last < text.length) frag.appendChild(document.createTextNode(text.slice(last)));
      node.parentNode.replaceChild(frag, node);
    });
  }

  function renderMarkdown(text) {
    var box = el("div", "s2r-md");
    if (!md || !window.DOMPurify) { box.textContent = text; box.style.whiteSpace = "pre-wrap"; return box; }
    var html = md.parse(text.replace(/&/g, "&amp;").replace(/</g, "&lt;"));
    box.appendChild(window.DOMPurify.sanitize(html, {
      ALLOWED_TAGS: ALLOWED_TAGS, ALLOWED_ATTR: [], RETURN_DOM_FRAGMENT: true
    }));
    box.querySelectorAll("table").forEach(function (table) {  // wide tables scroll sideways
      var wrap = el("div", "s2r-table");
      table.parentNode.insertBefore(wrap, table);
      wrap.appendChild(table);
    });
    linkCitations(box);
    return box;
  }

  function sectionTitle(section) {
    var parts = section.split(">").map(function (s) { return s.trim(); });
    return parts.length > 1 ? parts.slice(1).join(" > ") : section;
  }

  // "Open in card": the read-only card page (/card/{card id}) in a new tab, at the cited section,
  // with the quote marked there by the server (#15). Built as an attribute, never as markup.
  // A quote's first 200 characters mark it well enough (any prefix of a card span is a card span), and
  // keep the link short: 1000 Chinese characters were 9 kB of URL, which with a portal's large cookies
  // went over the server's 16 kB request-head limit (R162). The card page ignores quotes over 1000.
  var MAX_QUOTE = 200;
  function cardLink(c) {
    var id = String(c.chunk_id || ""), hash = id.indexOf("#");
    if (hash <= 0) return null;
    var href = "card/" + encodeURIComponent(id.slice(0, hash)) + "?section=" + encodeURIComponent(id.slice(hash + 1)) +
      "&quote=" + encodeURIComponent(String(c.quote || "").slice(0, MAX_QUOTE)) + (lang === "en" ? "&lang=en" : "") + "#s2r-hl";
    var a = el("a", "s2r-open-card", t.openCard);
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener";
    return a;
  }

  function sourcesBlock(citations) {
    var details = el("details", "s2r-sources");
    details.appendChild(el("summary", null, t.sources + " (" + citations.length + ")"));
    var ol = el("ol");
    citations.forEach(function (c) {
      var li = el("li", "s2r-source");
      li.setAttribute("data-n", String(c.marker));
      li.appendChild(el("span", "s2r-marker", "[" + c.marker + "]"));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", "s2r-section", sectionTitle(c.section)));
      if (lang === "en" && c.quote_en) {  // the aligned English, then the Chinese it renders (#17)
        li.appendChild(el("blockquote", "s2r-quote", c.quote_en));
        li.appendChild(el("blockquote", "s2r-quote s2r-original", t.original + c.quote));
      } else {
        li.appendChild(el("blockquote", "s2r-quote", c.quote));
      }
      var link = cardLink(c);
      if (link) li.appendChild(link);
      ol.appendChild(li);
    });
    details.appendChild(ol);
    return details;
  }

  function chips(items, cls) {
    var box = el("div", cls);
    items.forEach(function (q) {
      var b = el("button", "s2r-chip", q);
      b.type = "button";
      b.addEventListener("click", function () { ask(q); });
      box.appendChild(b);
    });
    return box;
  }

  function addMessage(role, node) {
    var msg = el("div", "s2r-msg s2r-" + role);
    msg.appendChild(node);
    log.appendChild(msg);
    return msg;
  }

  function showAnswer(pending, answer) {
    pending.textContent = "";
    pending.classList.remove("s2r-pending");
    pending.appendChild(renderMarkdown(answer.answer));
    var citations = answer.citations || [];
    if (citations.length) pending.appendChild(sourcesBlock(citations));
    pending.querySelectorAll(".s2r-cite").forEach(function (b) {  // hover shows the quote
      var c = citations.filter(function (x) { return String(x.marker) === b.getAttribute("data-n"); })[0];
      if (c) { b.title = sectionTitle(c.section) + "：" + c.quote; b.setAttribute("aria-label", t.source + " " + c.marker); }
    });
    if (answer.followups && answer.followups.length) {
      pending.appendChild(el("div", "s2r-followups-label", t.followups));
      pending.appendChild(chips(answer.followups.slice(0, 3), "s2r-followups"));
    }
  }

  // A click on [n]: open that answer's sources, scroll to the nth and flash it.
  log.addEventListener("click", function (e) {
    var cite = e.target.closest(".s2r-cite");
    if (!cite) return;
    var msg = cite.closest(".s2r-msg"), details = msg && msg.querySelector("details.s2r-sources");
    if (!details) return;
    details.open = true;
    var li = details.querySelector('li[data-n="' + cite.getAttribute("data-n") + '"]');
    if (!li) return;
    log.querySelectorAll(".s2r-source-active").forEach(function (x) { x.classList.remove("s2r-source-active"); });
    li.classList.add("s2r-source-active");
    li.scrollIntoView({ block: "nearest" });
  });

  // A new question goes to the top of the log, so its answer shows from its start (also when the
  // reader had scrolled up).
  function showFromStart(msg) {
    log.scrollTop += msg.getBoundingClientRect().top - log.getBoundingClientRect().top - 8;
  }

  // ------------------------------------------------------------------ kept across reloads (#15)
  var STORE = "s2r-embed-conversation-v1", MAX_KEPT = 40;
  var kept = [];  // [{q: question}, {a: {answer, citations, followups}}, ...]

  function keep(item) {
    kept.push(item);
    kept = kept.slice(-MAX_KEPT);
    try { localStorage.setItem(STORE, JSON.stringify({ lang: lang, items: kept, history: history.slice(-MAX_HISTORY) })); }
    catch (e) { /* storage full or blocked (third-party iframe): keep the conversation in memory only */ }
  }

  function slim(answer) {  // what showAnswer needs; full chunk texts are not kept
    return {
      answer: String(answer.answer || ""), followups: (answer.followups || []).slice(0, 3).map(String),
      citations: (answer.citations || []).map(function (c) {
        return { marker: c.marker, section: String(c.section || ""), quote: String(c.quote || ""),
                 chunk_id: String(c.chunk_id || ""), quote_en: c.quote_en ? String(c.quote_en) : undefined };
      })
    };
  }

  function restore() {
    var saved;
    try { saved = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { saved = null; }
    if (!saved || saved.lang !== lang || !Array.isArray(saved.items)) return;
    saved.items.forEach(function (item) {
      if (item && typeof item.q === "string") addMessage("user", el("div", "s2r-text", item.q));
      else if (item && item.a && typeof item.a.answer === "string") showAnswer(addMessage("bot", el("div")), item.a);
    });
    kept = saved.items.slice(-MAX_KEPT);
    history = Array.isArray(saved.history) ? saved.history.filter(function (h) {
      return h && (h.role === "user" || h.role === "assistant") && typeof h.content === "string";
    }) : [];
    if (kept.length) { examples.hidden = true; log.scrollTop = log.scrollHeight; }
  }

  function clearConversation() {
    kept = []; history = [];
    try { localStorage.removeItem(STORE); } catch (e) { /* nothing kept */ }
    log.textContent = "";
    examples.hidden = false;
    input.focus();
  }

  function showError(pending, message) {
    pending.textContent = t.error + message;
    pending.classList.remove("s2r-pending");
    pending.classList.add("s2r-error");
  }

  function ask(question) {
    question = (question || "").trim();
    if (!question || busy) return;
    busy = true; send.disabled = true;
    examples.hidden = true;
    var asked = addMessage("user", el("div", "s2r-text", question));
    keep({ q: question });
    var pending = addMessage("bot", el("div", null, t.thinking));
    showFromStart(asked);
    pending.classList.add("s2r-pending");
    var body = JSON.stringify({ question: question, history: history.slice(-MAX_HISTORY) });
    var headers = { "Content-Type": "application/json" };
    if (readerToken) headers.Authorization = "Bearer " + readerToken;
    fetch(API, { method: "POST", headers: headers, body: body })
      .then(function (r) {
        return r.json().then(function (data) { return { ok: r.ok, data: data }; },
                             function () { return { ok: false, data: { detail: "HTTP " + r.status } }; });
      })
      .then(function (res) {
        if (!res.ok) { showError(pending, String(res.data.detail || "")); return; }
        showAnswer(pending, res.data);
        history.push({ role: "user", content: question }, { role: "assistant", content: res.data.answer });
        keep({ a: slim(res.data) });
        showFromStart(asked);
      })
      .catch(function () { showError(pending, t.network); })
      .then(function () { busy = false; send.disabled = false; input.focus(); });
  }

  document.querySelectorAll("[data-t]").forEach(function (n) { n.textContent = t[n.getAttribute("data-t")]; });
  input.placeholder = t.placeholder;
  document.documentElement.lang = lang === "en" ? "en" : "zh-CN";
  examples.appendChild(chips(t.examples, "s2r-example-list"));
  var clear = document.getElementById("s2r-clear");
  clear.addEventListener("click", clearConversation);
  restore();

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var q = input.value;
    input.value = "";
    ask(q);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); form.requestSubmit(); }
  });
})();
