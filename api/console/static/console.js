// Progressive: every page works without this. With it, queue actions happen in place
// and the queue follows what others decide (fetched again every few seconds, and swapped
// in only when it changed and nobody is typing in it).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  if (!queue) return;
  let shown = queue.innerHTML;
  let acted = 0; // actions sent: a list fetched before the latest one is older than its answer
  let pending = 0; // requests not yet answered: the queue is aria-busy meanwhile

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
  function swap(html, polled) {
    if (html === shown) return;
    const focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest(".item") : null;
    const subject = focused ? focused.dataset.subject : null;
    // A refreshed list keeps the answer to the owner's last action (done, or refused): it
    // is their confirmation, and must not vanish with the next poll.
    const kept = polled ? Array.from(queue.querySelectorAll("p[data-notice], p.message[role=status]")) : [];
    queue.innerHTML = html; shown = html;
    for (const note of kept) {
      const count = queue.querySelector("p.count");
      if (note.matches("p.message") && count) count.after(note); else queue.prepend(note);
    }
    if (subject) {
      const again = queue.querySelector('.item[data-subject="' + CSS.escape(subject) + '"]');
      if (again) again.focus();
    }
  }
  function settle(change) {
    pending += change;
    if (pending) queue.setAttribute("aria-busy", "true"); else queue.removeAttribute("aria-busy");
  }
  async function send(url, init) {
    settle(1);
    try { await answered(url, init, init ? ++acted : acted); } finally { settle(-1); }
  }
  async function answered(url, init, asked) {
    let answer;
    try {
      answer = await fetch(url, Object.assign({ headers: { "X-Console": "fetch" }, credentials: "same-origin" }, init || {}));
    } catch (_) { return; }
    if (answer.redirected) {
      if (init) notice("Your session has ended: sign in again (nothing was sent).");
      return;
    }
    const html = await answer.text();
    // A poll's answer is dropped when the owner started typing after it was sent (the swap
    // would wipe what they typed) or acted since (it is older than the action's answer).
    if (!init && (asked !== acted || busy())) return;
    if (answer.ok) { swap(html, !init); return; }
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
