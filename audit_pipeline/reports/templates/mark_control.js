(function () {
  "use strict";
  // The report's one script (its Content-Security-Policy allows this text, by hash, and
  // nothing else). Served by `audit-pipeline serve` (/reports/<audit>/), a mark is recorded
  // through the API beside it; opened as a file, the ready command is copied instead.
  var served = location.protocol === "http:" || location.protocol === "https:";
  var who = document.getElementById("mark-by");
  var key = "audit-pipeline-mark-by";
  if (who) {
    try { who.value = window.localStorage.getItem(key) || ""; } catch (e) { /* no storage */ }
  }
  function quote(text) {
    return "'" + text.replace(/'/g, "'\\''") + "'";
  }
  function command(control, label, note, by) {
    var parts = ["audit-pipeline", "mark", quote(control.dataset.audit),
                 quote(control.dataset.claim), "--label", label];
    if (note) { parts.push("--note", quote(note)); }
    if (by) { parts.push("--by", quote(by)); }
    return parts.join(" ");
  }
  function show(control, status, text) {
    control.querySelector(".mark-status").textContent = status;
    var out = control.querySelector(".mark-command");
    out.textContent = text || "";
    out.hidden = !text;
  }
  function copy(control, text, why) {
    show(control, why + "run this where the warehouse is:", text);
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () {
        show(control, why + "copied to the clipboard; run it where the warehouse is:", text);
      }, function () { /* shown above: select and copy it */ });
    }
  }
  function record(control, label, note, by, text) {
    var body = {audit_id: control.dataset.audit, claim_id: control.dataset.claim, label: label};
    if (note) { body.note = note; }
    if (by) { body.by = by; }
    show(control, "recording…", "");
    fetch("marks", {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (response.status === 201) {
          show(control, "recorded " + answer.mark_id + ": " + answer.label_marked + " by " +
               answer.marked_by + "; the next audit (or the marks sensor's re-scoring) applies it", "");
          control.classList.add("recorded");
        } else {
          var detail = typeof answer.detail === "string" ? answer.detail : response.statusText;
          copy(control, text, "not recorded (" + response.status + ": " + detail + "); ");
        }
      });
    }).catch(function () {
      copy(control, text, "not recorded (the server did not answer); ");
    });
  }
  var buttons = document.querySelectorAll(".mark-control button");
  Array.prototype.forEach.call(buttons, function (button) {
    button.addEventListener("click", function () {
      var control = button.closest(".mark-control");
      var label = control.querySelector("select").value;
      var note = control.querySelector(".mark-note").value.trim();
      var by = who ? who.value.trim() : "";
      if (who) {
        try { window.localStorage.setItem(key, by); } catch (e) { /* no storage */ }
      }
      var text = command(control, label, note, by);
      if (served) { record(control, label, note, by, text); } else { copy(control, text, ""); }
    });
  });
})();
