// Progressive: every page works without this script.
//
// A live page (a run, a work graph, a deliberation) follows what it shows: the server
// sends the page's changing part (server-sent events) whenever it changes, and it is
// swapped in place; the browser reconnects by itself when a stream ends.
(function () {
  "use strict";
  const run = document.querySelector("[data-live]");
  if (!run || !window.EventSource) return;
  const source = new EventSource(run.dataset.live);
  source.addEventListener("live", function (event) {
    // a detail the reader opened stays open across the swap
    const open = Array.from(run.querySelectorAll("details[open][id]")).map((d) => d.id);
    run.innerHTML = event.data;
    open.forEach(function (id) {
      const again = document.getElementById(id);
      if (again) again.open = true;
    });
    run.dataset.updated = String(Date.now());
  });
  // what the page shows can no longer change (or may no longer be read): stop asking
  source.addEventListener("end", function () { source.close(); run.dataset.ended = "yes"; });
})();

// The start form: a task the offline model answers is filled in with one click.
(function () {
  "use strict";
  const form = document.getElementById("start");
  if (!form) return;
  form.addEventListener("click", function (event) {
    const chosen = event.target.closest("button[data-task]");
    if (!chosen) return;
    form.querySelector("#agent").value = chosen.dataset.agent;
    form.querySelector("#task").value = chosen.dataset.task;
    form.querySelector("#task").focus();
  });
})();

// Keeping a document: a text file chosen fills the text box (read in the browser).
(function () {
  "use strict";
  const file = document.getElementById("file");
  const text = document.getElementById("text");
  if (!file || !text) return;
  file.addEventListener("change", function () {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    chosen.text().then(function (content) {
      text.value = content;
      const ref = document.getElementById("ref");
      if (ref && !ref.value) {
        ref.value = chosen.name.toLowerCase().replace(/\.[a-z0-9]+$/, "")
          .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63);
      }
    });
  });
})();

// The queue: actions happen in place and the queue follows what others decide (fetched again every few seconds, and swapped
// in only when it changed and nobody is typing in it).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  if (!queue) return;
  // The answer to the owner's last action (done, or refused) sits here, outside the list a
  // refresh replaces: it is their confirmation, and is neither lost nor read out again
  // when the list changes. The next action's answer replaces it.
  const notes = document.createElement("div");
  notes.className = "notes";
  queue.before(notes);
  let acted = 0; // actions sent so far
  let acting = 0; // actions sent and not yet answered
  let pending = 0; // requests not yet answered: the queue is aria-busy meanwhile
  let shown = "";

  function items() { return Array.from(queue.querySelectorAll(".queue .item")); }
  function busy() {
    const active = document.activeElement;
    if (active && queue.contains(active) && active.closest("form")) return true;
    return Array.from(queue.querySelectorAll("input:not([type=hidden])")).some((i) => i.value);
  }
  function list(html) {
    // The server's list, with the answer it carries (a done message) taken out for notes.
    const t = document.createElement("template");
    t.innerHTML = html;
    const done = t.content.querySelector("p.message[role=status]");
    if (done) done.remove();
    return { content: t.content, done: done };
  }
  function tell(note) { notes.replaceChildren(...(note ? [note] : [])); }
  function notice(text) {
    const note = document.createElement("p");
    note.className = "refusal"; note.setAttribute("role", "alert"); note.dataset.notice = "";
    note.textContent = text;
    tell(note);
  }
  function swap(html) {
    const next = list(html);
    tell(next.done);
    show(next.content, html);
  }
  function show(content, html) {
    if (html === shown) return;
    const focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest(".item") : null;
    const subject = focused ? focused.dataset.subject : null;
    queue.replaceChildren(content); shown = html;
    if (subject) {
      const again = queue.querySelector('.item[data-subject="' + CSS.escape(subject) + '"]');
      if (again) again.focus();
    }
  }
  swap(queue.innerHTML); // the page's own done message, if any, moves to notes
  function settle(change) {
    pending += change;
    if (pending) queue.setAttribute("aria-busy", "true"); else queue.removeAttribute("aria-busy");
  }
  async function send(url, init) {
    // What the list answer may be trusted for is fixed when it is sent: a refresh sent
    // while an action was out, or before a later one, may predate that action.
    const asked = init ? ++acted : acted, during = acting;
    settle(1); if (init) acting += 1;
    try { await answered(url, init, asked, during); } finally { settle(-1); if (init) acting -= 1; }
  }
  async function answered(url, init, asked, during) {
    let answer;
    try {
      answer = await fetch(url, Object.assign({ headers: { "X-Console": "fetch" }, credentials: "same-origin" }, init || {}));
    } catch (_) { return; }
    if (answer.redirected) {
      if (init) notice("Your session has ended: sign in again (nothing was sent).");
      return;
    }
    const html = await answer.text();
    const stale = asked !== acted; // another action was sent since
    if (!init) {
      // A refresh is dropped when it may predate an action, or when the owner started
      // typing after it was sent (it would wipe what they typed).
      if (!answer.ok || stale || during || busy()) return;
      const next = list(html);
      show(next.content, html);
      return;
    }
    if (answer.ok) {
      // An action answered after a later one was sent says what it did, but its list is
      // older than the later one's.
      if (stale) { tell(list(html).done); return; }
      swap(html); return;
    }
    const why = new DOMParser().parseFromString(html, "text/html").querySelector(".refusal");
    notice(why ? why.textContent : "Refused (" + answer.status + ").");
  }
  queue.addEventListener("submit", function (event) {
    const form = event.target.closest("form.act");
    if (!form) return;
    event.preventDefault();
    // getAttribute: a field named "action" shadows form.action
    send(form.getAttribute("action"), { method: "POST", body: new URLSearchParams(new FormData(form)) });
  });
  setInterval(function () {
    if (!busy() && document.visibilityState === "visible") send(queue.dataset.poll);
  }, 3000);
  queue.addEventListener("keydown", function (event) {
    if (event.target.closest("form") || event.altKey || event.ctrlKey || event.metaKey) return;
    const all = items(); if (!all.length) return;
    const at = all.indexOf(event.target.closest(".item"));
    const down = event.key === "j" || event.key === "ArrowDown";
    const up = event.key === "k" || event.key === "ArrowUp";
    if (!down && !up) return;
    event.preventDefault();
    all[down ? Math.min(at + 1, all.length - 1) : Math.max(at - 1, 0)].focus();
  });
})();

// A notice's link opens the queue at its item: bring it into view, and focus it.
(function () {
  "use strict";
  const item = document.querySelector(".item.focus");
  if (!item) return;
  item.scrollIntoView({ block: "center" });
  item.focus({ preventScroll: true });
})();
