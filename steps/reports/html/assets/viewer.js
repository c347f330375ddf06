// The transcript viewer: parses the page's embedded dialogue JSON on first use, filters it, shows one dialogue.
// Routes: #view (the list), #view?agent=A&env=E (filtered; opens the first match), #d=AGENT/ID (one dialogue).
// A route is followed when the hash changes and when the page is opened with it (a link opened directly).
(function () {
  "use strict";
  var data = null;
  var el = function (id) { return document.getElementById(id); };
  var FILTERS = ["agent", "env", "score", "end"];
  var BUCKETS = {"": null, "0": [0, 0], "0-50": [0.0001, 49.9999], "50-100": [50, 99.9999], "100": [100, 100],
                 "none": "none"};

  function load() {
    if (data === null) {
      data = JSON.parse(el("dialogue-data").textContent);
      fill("f-agent", data.map(function (d) { return d.agent; }));
      fill("f-env", data.map(function (d) { return d.env; }));
      fill("f-end", data.map(function (d) { return d.end; }));
    }
    return data;
  }
  function fill(id, values) {
    var select = el(id), seen = {};
    values.forEach(function (v) {
      if (seen[v] || v === "") { return; }
      seen[v] = true;
      var o = document.createElement("option");
      o.value = v; o.textContent = v; select.appendChild(o);
    });
  }
  function make(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function matches(d) {
    var f = {agent: el("f-agent").value, env: el("f-env").value, end: el("f-end").value};
    if (f.agent && d.agent !== f.agent) { return false; }
    if (f.env && d.env !== f.env) { return false; }
    if (f.end && d.end !== f.end) { return false; }
    var b = BUCKETS[el("f-score").value];
    if (b === "none") { return d.score === null; }
    if (b && (d.score === null || d.score < b[0] || d.score > b[1])) { return false; }
    var q = el("f-text").value.trim();
    return !q || d.id.indexOf(q) >= 0 || d.title.indexOf(q) >= 0;
  }
  function renderList() {
    var list = el("dlist"), shown = load().filter(matches);
    list.textContent = "";
    shown.forEach(function (d) {
      var li = make("li");
      li.dataset.key = d.agent + "/" + d.id;
      li.appendChild(make("span", "sc", d.score === null ? "—" : d.score.toFixed(1)));
      li.appendChild(document.createTextNode(d.agent + " · " + d.title));
      li.addEventListener("click", function () { location.hash = "d=" + li.dataset.key; });
      list.appendChild(li);
    });
    el("dcount").textContent = shown.length + " of " + data.length + " dialogues";
    return shown;
  }
  function show(d) {
    var view = el("dview");
    view.textContent = "";
    Array.prototype.forEach.call(el("dlist").children, function (li) {
      li.classList.toggle("active", li.dataset.key === d.agent + "/" + d.id);
    });
    view.appendChild(make("h3", "dtitle", d.title));
    view.appendChild(make("p", "note", "agent " + d.agent + " · " + d.env + " · ended by " + (d.end || "—") +
      " · score " + (d.score === null ? "—" : d.score.toFixed(1)) + (d.causes ? " · failure causes: " + d.causes : "")));
    if (d.scores.length) {
      var t = make("table", "scores"), head = make("tr");
      ["score", "value", "judge", "reason / evidence"].forEach(function (h) { head.appendChild(make("th", "", h)); });
      t.appendChild(head);
      d.scores.forEach(function (s) {
        var tr = make("tr");
        tr.appendChild(make("td", "", s[0]));
        tr.appendChild(make("td", "", s[1] === null ? "—" : String(s[1])));
        tr.appendChild(make("td", "", s[2]));
        tr.appendChild(make("td", "r", s[3]));
        t.appendChild(tr);
      });
      var box = make("details");
      box.open = true;
      box.appendChild(make("summary", "", "scores (" + d.scores.length + ")"));
      box.appendChild(t);
      view.appendChild(box);
    }
    d.turns.forEach(function (turn, i) {
      var cls = "turn" + (turn[6] ? " failed" : "") + (turn[3] && turn[3].indexOf("persona") < 0 &&
        turn[3].indexOf("judge") < 0 && turn[3].indexOf("fixed/") < 0 ? " agent" : "");
      var div = make("div", cls);
      var who = turn[0] + (turn[1] ? " → " + turn[1] : "");
      var meta = "#" + i + (turn[2] ? " · " + turn[2] : "") + " · " + who + (turn[4] !== "utterance" ? " (" + turn[4] + ")" : "") +
        (turn[3] ? " · " + turn[3] : "");
      div.appendChild(make("div", "meta", meta));
      if (turn[7]) {  // the reply's reasoning trace, removed from the text: folded
        var trace = make("details", "trace");
        trace.appendChild(make("summary", "", "reasoning (" + turn[7].length + " characters, not part of the reply)"));
        trace.appendChild(make("div", "text", turn[7]));
        div.appendChild(trace);
      }
      if (turn[5]) { div.appendChild(make("div", "text", turn[5])); }
      if (turn[6]) { div.appendChild(make("div", "tnote", turn[6])); }
      view.appendChild(div);
    });
    if (d.result && d.result.text) {
      view.appendChild(make("h4", "", d.result.title));
      view.appendChild(make("pre", "result", d.result.text));
    }
  }
  function decode(text) {
    try { return decodeURIComponent(text); } catch (e) { return text; }  // a malformed escape stays as typed
  }
  function route() {
    var raw = location.hash.slice(1), h = decode(raw);
    if (!el("viewer") || (h.indexOf("view") !== 0 && h.indexOf("d=") !== 0)) { return; }
    el("viewer").hidden = false;
    load();
    if (h.indexOf("view?") === 0) {
      var params = {};  // each value decoded on its own: an encoded & or = in a name stays in it
      var query = raw.indexOf("?") >= 0 ? raw.slice(raw.indexOf("?") + 1) : h.slice(5);
      query.split("&").forEach(function (kv) {
        var p = kv.split("=");
        params[decode(p[0])] = decode(p.slice(1).join("="));
      });
      FILTERS.forEach(function (f) { el("f-" + f).value = params[f] || ""; });
      el("f-text").value = "";
      var shown = renderList();
      if (shown.length) { show(shown[0]); }
    } else if (h.indexOf("d=") === 0) {
      var key = h.slice(2);
      if (!el("dlist").children.length) { renderList(); }
      var d = data.filter(function (x) { return x.agent + "/" + x.id === key; })[0];
      if (d) { show(d); }
    } else {
      renderList();
    }
    el("viewer").scrollIntoView();
  }
  function start() {
    if (!el("viewer")) { return; }
    ["f-agent", "f-env", "f-score", "f-end"].forEach(function (id) { el(id).addEventListener("change", renderList); });
    el("f-text").addEventListener("input", renderList);
    window.addEventListener("hashchange", route);
    route();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
