// Gezel Knowledge browser: small enhancements over pages that work without JavaScript.
// Catalog text is never inserted as HTML here: every node is built with textContent.
"use strict";

function copyText(text, button) {
  const done = function () {
    const label = button.textContent;
    button.textContent = "Copied";
    button.classList.add("copied");
    window.setTimeout(function () { button.textContent = label; button.classList.remove("copied"); }, 1500);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, function () { window.prompt("Copy the citation:", text); });
  } else {
    window.prompt("Copy the citation:", text);
  }
}

function wireCopyButtons(root) {
  root.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () { copyText(button.getAttribute("data-copy"), button); });
  });
}

function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text) { node.textContent = text; }
  Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
  return node;
}

function topicNode(topic) {
  const item = element("li");
  if (!topic.hasChildren && !topic.ownDocuments) {
    item.appendChild(element("a", topic.name, { href: topic.url }));
    return item;
  }
  const details = element("details", null, { "data-children": topic.url + "?format=json" });
  const summary = element("summary", topic.name + " ");
  summary.appendChild(element("span", String(topic.documents), { class: "count" }));
  details.appendChild(summary);
  const children = element("div", null, { class: "children" });
  children.appendChild(element("a", "Open " + topic.name, { href: topic.url, class: "open-topic" }));
  details.appendChild(children);
  wireOutline(details);
  item.appendChild(details);
  return item;
}

function fillTopic(details, data) {
  const box = details.querySelector(".children");
  box.textContent = "";
  const list = element("ul", null, { class: "tree" });
  data.children.forEach(function (topic) { list.appendChild(topicNode(topic)); });
  data.documents.forEach(function (doc) {
    const item = element("li", null, { class: "doc" });
    item.appendChild(element("a", doc.title, { href: doc.url }));
    list.appendChild(item);
  });
  box.appendChild(list);
  if (data.next !== null) {
    box.appendChild(element("a", "More documents in " + data.topic.name, { href: data.topic.url + "?offset=" + data.next, class: "more" }));
  }
}

function wireOutline(details) {
  details.addEventListener("toggle", function () {
    if (!details.open || details.dataset.loaded) { return; }
    details.dataset.loaded = "1";
    fetch(details.getAttribute("data-children"), { headers: { Accept: "application/json" } })
      .then(function (response) { if (!response.ok) { throw new Error(response.status); } return response.json(); })
      .then(function (data) { fillTopic(details, data); })
      .catch(function () { delete details.dataset.loaded; });
  });
}

function blockLines(node) {
  let current = node && node.nodeType === 1 ? node : node && node.parentElement;
  while (current && !current.hasAttribute("data-lines")) {
    if (current.id === "body") { return null; }
    current = current.parentElement;
  }
  if (!current) { return null; }
  const parts = current.getAttribute("data-lines").split("-");
  return [parseInt(parts[0], 10), parseInt(parts[1], 10)];
}

function wireSelection(body) {
  const bar = document.getElementById("selection-cite");
  const code = document.getElementById("selection-citation");
  const open = document.getElementById("selection-open");
  const base = body.getAttribute("data-citation").split("#")[0];
  let citation = null;
  document.addEventListener("selectionchange", function () {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !body.contains(selection.anchorNode) || !body.contains(selection.focusNode)) {
      return;
    }
    const first = blockLines(selection.anchorNode);
    const last = blockLines(selection.focusNode);
    if (!first || !last) { return; }
    const start = Math.min(first[0], last[0]);
    const end = Math.max(first[1], last[1]);
    citation = base + "#line=" + (start === end ? String(start) : start + "-" + end);
    code.textContent = citation;
    open.setAttribute("href", "/cite?ref=" + encodeURIComponent(citation));
    bar.hidden = false;
  });
  document.getElementById("selection-copy").addEventListener("click", function (event) {
    if (citation) { copyText(citation, event.currentTarget); }
  });
}

function loadNearby(box) {
  fetch(box.getAttribute("data-nearby"), { headers: { Accept: "application/json" } })
    .then(function (response) { return response.json(); })
    .then(function (data) {
      box.textContent = "";
      if (data.unavailable) { box.appendChild(element("p", data.unavailable, { class: "note" })); return; }
      if (!data.nearby.length) { box.appendChild(element("p", "No other passage is close in meaning.", { class: "muted" })); return; }
      const list = element("ol", null, { class: "nearby" });
      data.nearby.forEach(function (hit) {
        const item = element("li");
        item.appendChild(element("a", hit.title + (hit.section.length ? " › " + hit.section.join(" › ") : ""), { href: hit.url }));
        list.appendChild(item);
      });
      box.appendChild(list);
    })
    .catch(function () { /* the link to the Nearby page stays */ });
}

function wireLibraryFilter(form) {
  const input = form.querySelector("input[name=q]");
  const cards = document.querySelectorAll("#catalogs > li");
  const count = document.getElementById("library-count");
  input.addEventListener("input", function () {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    cards.forEach(function (card) {
      const text = card.textContent.toLowerCase();
      const match = words.every(function (w) { return text.indexOf(w) >= 0; });
      card.hidden = !match;
      if (match) { shown += 1; }
    });
    count.textContent = shown + " of " + cards.length + " catalog" + (cards.length === 1 ? "" : "s");
  });
}

document.addEventListener("DOMContentLoaded", function () {
  wireCopyButtons(document);
  document.querySelectorAll("details[data-children]").forEach(wireOutline);
  const body = document.getElementById("body");
  if (body) { wireSelection(body); }
  const nearby = document.getElementById("nearby");
  if (nearby) { loadNearby(nearby); }
  const filter = document.getElementById("library-filter");
  if (filter) { wireLibraryFilter(filter); }
  const highlighted = document.querySelector("#body [data-hl]");
  if (highlighted && !window.location.hash) { highlighted.scrollIntoView({ block: "center" }); }
});
