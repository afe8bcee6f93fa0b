// Progressive: every page works without this. With it, queue actions happen in place
// and the queue follows what others decide (it is fetched again every few seconds).
(function () {
  "use strict";
  const queue = document.getElementById("queue");
  function items() { return Array.from(document.querySelectorAll(".queue .item")); }
  function editing() {
    const a = document.activeElement;
    return a && queue && queue.contains(a) && (a.tagName === "INPUT" || a.tagName === "SELECT");
  }
  async function refresh(url, init) {
    const answer = await fetch(url, Object.assign({ headers: { "X-Console": "fetch" }, credentials: "same-origin" }, init || {}));
    if (answer.redirected || !answer.ok && answer.status !== 403 && answer.status !== 409 && answer.status !== 422) return;
    const html = await answer.text();
    if (answer.ok) { queue.innerHTML = html; return; }
    const doc = new DOMParser().parseFromString(html, "text/html");
    const why = doc.querySelector(".refusal");
    const note = document.createElement("p");
    note.className = "refusal"; note.setAttribute("role", "alert"); note.dataset.fresh = "";
    note.textContent = why ? why.textContent : "Refused.";
    queue.prepend(note);
  }
  if (queue) {
    queue.addEventListener("submit", function (event) {
      const form = event.target.closest("form.act");
      if (!form) return;
      event.preventDefault();
      // getAttribute: a field named "action" shadows form.action
      refresh(form.getAttribute("action"), { method: "POST", body: new URLSearchParams(new FormData(form)) });
    });
    setInterval(function () {
      if (!editing() && document.visibilityState === "visible") refresh(queue.dataset.poll);
    }, 3000);
    document.addEventListener("keydown", function (event) {
      if (editing()) return;
      const all = items(); if (!all.length) return;
      const at = all.indexOf(document.activeElement.closest ? document.activeElement.closest(".item") : null);
      if (event.key === "j" || event.key === "ArrowDown") { event.preventDefault(); all[Math.min(at + 1, all.length - 1)].focus(); }
      if (event.key === "k" || event.key === "ArrowUp") { event.preventDefault(); all[Math.max(at - 1, 0)].focus(); }
    });
  }
})();
