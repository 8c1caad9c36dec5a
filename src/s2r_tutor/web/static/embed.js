/* s2r-tutor /embed widget. Untrusted text (questions, answers, card quotes) only ever goes into
 * the page through textContent or createTextNode; this file never parses a string as HTML. */
(function () {
  "use strict";

  var TEXT = {
    zh: {
      title: "Sim2Real 学习助手", subtitle: "回答均引用概念卡 04-08", send: "发送",
      placeholder: "输入关于 Sim2Real 的问题，回车发送", thinking: "正在查找卡片内容…",
      sources: "来源", original: "原文：", followups: "接着问", error: "出错了：", network: "无法连接到学习助手。",
      examples: ["什么是 Sim2Real？", "强化学习和 Sim2Real 有什么区别？", "客户说实验室里走得很好，到工厂就容易摔，怎么解释？"]
    },
    en: {
      title: "Sim2Real study assistant", subtitle: "Every answer cites concept card 04-08", send: "Send",
      placeholder: "Ask about Sim2Real, Enter to send", thinking: "Looking through the card…",
      sources: "Sources", original: "Chinese original: ", followups: "Follow up", error: "Error: ", network: "Cannot reach the study assistant.",
      examples: ["What is Sim2Real?", "How is reinforcement learning different from Sim2Real?", "What is the reality gap?"]
    }
  };
  var lang = new URLSearchParams(window.location.search).get("lang") === "en" ? "en" : "zh";
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

  // Inline Markdown subset: **bold** and [n] citation markers; the rest is plain text.
  function appendInline(parent, line) {
    var re = /\*\*([^*]+)\*\*|\[(\d+)\]/g, last = 0, m;
    while ((m = re.exec(line)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(line.slice(last, m.index)));
      if (m[1] !== undefined) parent.appendChild(el("strong", null, m[1]));
      else parent.appendChild(el("sup", "s2r-cite", "[" + m[2] + "]"));
      last = re.lastIndex;
    }
    if (last < line.length) parent.appendChild(document.createTextNode(line.slice(last)));
  }

  // Block Markdown subset: paragraphs, "- " / "1. " lists, "#" headings, "> " quotes.
  function renderMarkdown(text) {
    var box = el("div", "s2r-md"), list = null;
    text.split(/\n/).forEach(function (raw) {
      var line = raw.trim(), m;
      if (!line) { list = null; return; }
      if ((m = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line))) {
        if (!list) { list = el(/^\d/.test(line) ? "ol" : "ul"); box.appendChild(list); }
        var li = el("li"); appendInline(li, m[1]); list.appendChild(li); return;
      }
      list = null;
      var block;
      if ((m = /^#{1,6}\s+(.*)$/.exec(line))) { block = el("p", "s2r-h"); line = m[1]; }
      else if ((m = /^>\s?(.*)$/.exec(line))) { block = el("blockquote"); line = m[1]; }
      else block = el("p");
      appendInline(block, line);
      box.appendChild(block);
    });
    return box;
  }

  function sectionTitle(section) {
    var parts = section.split(">").map(function (s) { return s.trim(); });
    return parts.length > 1 ? parts.slice(1).join(" > ") : section;
  }

  function sourcesBlock(citations) {
    var details = el("details", "s2r-sources");
    details.appendChild(el("summary", null, t.sources + " (" + citations.length + ")"));
    var ol = el("ol");
    citations.forEach(function (c) {
      var li = el("li", "s2r-source");
      li.appendChild(el("span", "s2r-marker", "[" + c.marker + "]"));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", "s2r-section", sectionTitle(c.section)));
      if (lang === "en" && c.quote_en) {  // the aligned English, then the Chinese it renders (#17)
        li.appendChild(el("blockquote", "s2r-quote", c.quote_en));
        li.appendChild(el("blockquote", "s2r-quote s2r-original", t.original + c.quote));
      } else {
        li.appendChild(el("blockquote", "s2r-quote", c.quote));
      }
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
    log.scrollTop = log.scrollHeight;
    return msg;
  }

  function showAnswer(pending, answer) {
    pending.textContent = "";
    pending.classList.remove("s2r-pending");
    pending.appendChild(renderMarkdown(answer.answer));
    if (answer.citations && answer.citations.length) pending.appendChild(sourcesBlock(answer.citations));
    if (answer.followups && answer.followups.length) {
      pending.appendChild(el("div", "s2r-followups-label", t.followups));
      pending.appendChild(chips(answer.followups.slice(0, 3), "s2r-followups"));
    }
    log.scrollTop = log.scrollHeight;
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
    addMessage("user", el("div", "s2r-text", question));
    var pending = addMessage("bot", el("div", null, t.thinking));
    pending.classList.add("s2r-pending");
    var body = JSON.stringify({ question: question, history: history.slice(-MAX_HISTORY) });
    fetch(API, { method: "POST", headers: { "Content-Type": "application/json" }, body: body })
      .then(function (r) {
        return r.json().then(function (data) { return { ok: r.ok, data: data }; },
                             function () { return { ok: false, data: { detail: "HTTP " + r.status } }; });
      })
      .then(function (res) {
        if (!res.ok) { showError(pending, String(res.data.detail || "")); return; }
        showAnswer(pending, res.data);
        history.push({ role: "user", content: question }, { role: "assistant", content: res.data.answer });
      })
      .catch(function () { showError(pending, t.network); })
      .then(function () { busy = false; send.disabled = false; input.focus(); });
  }

  document.querySelectorAll("[data-t]").forEach(function (n) { n.textContent = t[n.getAttribute("data-t")]; });
  input.placeholder = t.placeholder;
  document.documentElement.lang = lang === "en" ? "en" : "zh-CN";
  examples.appendChild(chips(t.examples, "s2r-example-list"));

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
