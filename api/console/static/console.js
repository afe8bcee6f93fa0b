// Progressive: every page works without this. With it, queue actions happen in place
// and the queue follows what others decide (fetched again every few seconds, and swapped
// in only when it changed and nobody is typing in it).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  if (!queue) return;
  let shown = queue.innerHTML;

  function items() { return Array.from(queue.querySelectorAll(".queue .item")); }
  function busy() {
    const active = document.activeElement;
    if (active && queue.contains(active) && active.closest("form")) return true;
    return Array.from(queue.querySelectorAll("input:not([type=hidden])")).some((i) => i.value);
  }
  function notice(text) {
    // one refusal at a time: the newest replaces the last
    const last = queue.querySelector("p.refusal[data-notice]");
    if (last) last.remove();
    const note = document.createElement("p");
    note.className = "refusal"; note.setAttribute("role", "alert"); note.dataset.notice = "";
    note.textContent = text;
    queue.prepend(note);
  }
  function swap(html) {
    if (html === shown) return;
    const focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest(".item") : null;
    const subject = focused ? focused.dataset.subject : null;
    queue.innerHTML = html; shown = html;
    if (subject) {
      const again = queue.querySelector('.item[data-subject="' + CSS.escape(subject) + '"]');
      if (again) again.focus();
    }
  }
  async function send(url, init) {
    let answer;
    try {
      answer = await fetch(url, Object.assign({ headers: { "X-Console": "fetch" }, credentials: "same-origin" }, init || {}));
    } catch (_) { return; }
    if (answer.redirected) {
      if (init) notice("Your session has ended: sign in again (nothing was sent).");
      return;
    }
    const html = await answer.text();
    if (answer.ok) { swap(html); return; }
    if (!init) return;
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
