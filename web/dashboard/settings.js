// Management of sites, goals, funnels and shared links through the
// server's API, for a caller that may manage them (an admin token: the
// site's can_manage, the list's can_create). The API checks each call;
// these views are offered to such callers only. Each form shows the
// API's message next to the field it names.

import { ApiError } from "./api.js";
import { Form, errorNotice, field, h, slug } from "./dom.js";

// timeZones lists the IANA zones the browser knows, UTC first.
function timeZones() {
  let zones = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    // an older browser: UTC and the viewer's zone
  }
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [...new Set(["UTC", own, ...zones].filter(Boolean))];
}

function zoneSelect(id, value) {
  const v = value || "UTC";
  const zones = timeZones();
  if (!zones.includes(v)) zones.push(v);
  return h("select", { id, class: "plain" }, zones.map((z) => h("option", { value: z, selected: z === v, text: z })));
}

// domainList reads a list of domains typed with commas, spaces or new
// lines.
function domainList(s) {
  return s.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean);
}

// siteForm is the form of a new site (site null) or of a site's general
// settings; done gets the site the API answered.
function siteForm(api, site, done) {
  const isNew = !site;
  const domains = h("input", { id: "site-domains", class: "plain", value: site ? site.domains.join(", ") : "", placeholder: "example.com", spellcheck: "false", autocomplete: "off", required: isNew });
  const id = h("input", { id: "site-id", class: "plain", value: site ? site.id : "", spellcheck: "false", autocomplete: "off", required: true, readonly: !isNew, pattern: "[a-z0-9._\\-]{1,64}" });
  const name = h("input", { id: "site-name", class: "plain", value: site ? site.name : "", autocomplete: "off" });
  const zone = zoneSelect("site-zone", site ? site.timeZone : Intl.DateTimeFormat().resolvedOptions().timeZone);
  const pub = h("input", { id: "site-public", type: "checkbox", checked: site ? site.public : false });
  if (isNew) {
    // The id follows the first domain until it is typed.
    let typed = false;
    id.addEventListener("input", () => { typed = true; });
    domains.addEventListener("input", () => {
      if (!typed) id.value = slug(domainList(domains.value)[0] || "");
    });
  }
  const body = () => ({ id: id.value.trim(), name: name.value.trim(), domains: domainList(domains.value), time_zone: zone.value, public: pub.checked });
  const form = new Form({ class: "stack", id: isNew ? "new-site" : "site-settings" }, [
    field("domains", "Domains", domains, "The host names of the site's pages, comma-separated; their subdomains count too. Add localhost to test on your machine."),
    field("id", "Site id", id, isNew ? "How the API and the script tag's data-domain may name it: a-z, 0-9, '.', '-', '_'." : "It cannot change."),
    field("name", "Name", name),
    field("time_zone", "Time zone", zone, "The dashboard's days and hours are the site's."),
    h("div", { class: "field", "data-field": "public" }, h("label", { class: "check" }, pub, "Public: anyone who knows the site's id may read its stats")),
    h("button", { class: "btn primary", type: "submit", text: isNew ? "Add the site" : "Save" }),
  ], () => (isNew ? api.createSite(body()) : api.updateSite(site.id, body())), done);
  return form;
}

// newSitePanel is the card of the site list that adds a site.
export function newSitePanel(api, onCreated) {
  const form = siteForm(api, null, onCreated);
  return h("section", { class: "card", "aria-labelledby": "new-site-title" }, h("h2", { id: "new-site-title", text: "Add a site" }), form.el);
}

// renderSettings fills view with the settings of site (its general
// settings, goals, funnels, shared links, deletion). nav: {back() to the
// dashboard, sites() to the site list, changed(site) after the site's
// settings are saved}. focus names the section to show first: "goals",
// "funnels".
export async function renderSettings(view, api, site, nav, focus) {
  const status = h("p", { class: "muted", role: "status" });
  const head = h("div", { class: "settings-head" },
    h("a", { href: "?site=" + encodeURIComponent(site.id), class: "back", onclick: (ev) => { ev.preventDefault(); nav.back(); } }, "← Back to the dashboard"),
    h("h1", { text: `Settings of ${site.name || site.id}` }), status);
  const general = siteForm(api, site, (s) => {
    status.textContent = "Saved.";
    nav.changed(s);
  });
  const goals = h("section", { class: "card", id: "settings-goals", "aria-labelledby": "settings-goals-title" }, h("h2", { id: "settings-goals-title", text: "Goals" }));
  const funnels = h("section", { class: "card", id: "settings-funnels", "aria-labelledby": "settings-funnels-title" }, h("h2", { id: "settings-funnels-title", text: "Funnels" }));
  const links = h("section", { class: "card", id: "settings-links", "aria-labelledby": "settings-links-title" }, h("h2", { id: "settings-links-title", text: "Shared links" }));
  view.replaceChildren(h("div", { class: "settings" }, head,
    h("section", { class: "card", id: "settings-general", "aria-labelledby": "settings-general-title" }, h("h2", { id: "settings-general-title", text: "General" }), general.el),
    goals, funnels, links, deletePanel(api, site, nav)));
  const reload = async () => {
    let gs;
    try {
      gs = await api.goals(site.id);
    } catch (e) {
      goals.replaceChildren(goals.firstChild, errorNotice(e, reload));
      return;
    }
    goalsPanel(goals, api, site, gs, reload);
    await funnelsPanel(funnels, api, site, gs, reload);
  };
  await Promise.all([reload(), linksPanel(links, api, site)]);
  const target = { goals: "goal-name", funnels: "funnel-name" }[focus];
  if (target) {
    const el = document.getElementById(target);
    el?.closest("section")?.scrollIntoView();
    el?.focus();
  } else {
    document.getElementById("site-name")?.focus();
  }
}

// list renders items as rows of text and a delete button; del(item)
// deletes one.
function list(items, text, del, what) {
  return h("ul", { class: "manage" }, items.map((x) => {
    const [main, rest] = text(x);
    return h("li", {}, h("span", { class: "grow" }, h("strong", { text: main }), rest ? h("span", { class: "muted", text: " " + rest }) : null),
      h("button", {
        class: "btn danger", type: "button", text: "Delete", "aria-label": `Delete ${what} ${main}`,
        onclick: async (ev) => {
          // The first click asks, the second deletes.
          const b = ev.currentTarget;
          if (!b.dataset.armed) {
            b.dataset.armed = "1";
            b.textContent = "Delete: sure?";
            b.setAttribute("aria-label", `Delete ${what} ${main}: press again to confirm`);
            return;
          }
          b.disabled = true;
          try {
            await del(x);
          } catch (e) {
            b.disabled = false;
            b.after(h("span", { class: "field-error", role: "alert", text: " " + e.message }));
          }
        },
      }));
  }));
}

function goalsPanel(box, api, site, goals, reload) {
  const kind = h("select", { id: "goal-kind", class: "plain" },
    h("option", { value: "event", text: "Custom event" }), h("option", { value: "pageview", text: "Page visit" }));
  const name = h("input", { id: "goal-name", class: "plain", autocomplete: "off", placeholder: "Signup" });
  const match = h("input", { id: "goal-match", class: "plain", autocomplete: "off", spellcheck: "false", placeholder: "Signup" });
  const id = h("input", { id: "goal-id", class: "plain", autocomplete: "off", spellcheck: "false" });
  const matchField = field("match", "Event name", match, "The name your page sends: timetable('Signup').");
  const sync = () => {
    const page = kind.value === "pageview";
    matchField.querySelector("label").textContent = page ? "Page path" : "Event name";
    matchField.querySelector("small").textContent = page ? "A path, with * for any part of a segment and ** for any run: /thanks, /blog/*." : "The name your page sends: timetable('Signup').";
    match.placeholder = page ? "/thanks" : "Signup";
  };
  kind.addEventListener("change", sync);
  let typed = false;
  id.addEventListener("input", () => { typed = true; });
  name.addEventListener("input", () => {
    if (!typed) id.value = slug(name.value);
    if (kind.value === "event" && !match.dataset.typed) match.value = name.value.trim();
  });
  match.addEventListener("input", () => { match.dataset.typed = "1"; });
  const form = new Form({ class: "stack", id: "new-goal" }, [
    field("kind", "Kind", kind),
    field("name", "Name", name),
    matchField,
    field("id", "Goal id", id, "How the API names it."),
    h("button", { class: "btn primary", type: "submit", text: "Add the goal" }),
  ], () => {
    // The API replaces a goal of the same id: here, adding never does.
    const gid = id.value.trim();
    if (goals.some((g) => g.id === gid)) throw new ApiError(0, `There is a goal of id ${gid}: pick another id, or delete that goal first.`, "", "id");
    return api.putGoal(site.id, { id: gid, name: name.value.trim(), kind: kind.value, match: match.value.trim() });
  }, reload);
  box.replaceChildren(box.firstChild,
    goals.length
      ? list(goals, (g) => [g.name || g.id, `${g.kind === "pageview" ? "visit of" : "event"} ${g.match}`], async (g) => { await api.deleteGoal(site.id, g.id); await reload(); }, "goal")
      : h("p", { class: "empty", text: "No goals yet. A goal counts the visits that send a custom event or visit a page." }),
    h("h3", { text: "Add a goal" }), form.el);
}

async function funnelsPanel(box, api, site, goals, reload) {
  let fs;
  try {
    fs = await api.funnels(site.id);
  } catch (e) {
    box.replaceChildren(box.firstChild, errorNotice(e, reload));
    return;
  }
  const shown = fs.length
    ? list(fs, (f) => [f.name || f.id, (f.steps || []).map((s) => (goals.find((g) => g.id === s) || {}).name || s).join(" → ")],
      async (f) => { await api.deleteFunnel(site.id, f.id); await reload(); }, "funnel")
    : h("p", { class: "empty", text: "No funnels yet. A funnel follows visitors through goals in order." });
  if (goals.length < 2) {
    box.replaceChildren(box.firstChild, shown, h("p", { class: "muted", text: "A funnel has at least two steps, each a goal: add goals first." }));
    return;
  }
  const name = h("input", { id: "funnel-name", class: "plain", autocomplete: "off", placeholder: "Pricing to signup" });
  const steps = h("ol", { class: "steps" });
  // Steps are numbered by their place; those beyond the second can go.
  const renumber = () => {
    [...steps.children].forEach((li, i) => li.querySelector("select").setAttribute("aria-label", `Step ${i + 1}`));
    more.hidden = steps.children.length >= 8;
  };
  const addStep = (value) => {
    const n = steps.children.length + 1;
    const sel = h("select", { id: `funnel-step-${n}`, class: "plain" },
      goals.map((g) => h("option", { value: g.id, selected: g.id === value, text: g.name || g.id })));
    const li = h("li", {}, h("div", {}, sel, n > 2 ? h("button", {
      class: "btn", type: "button", text: "Remove", "aria-label": "Remove this step",
      onclick: () => {
        li.remove();
        renumber();
        more.focus();
      },
    }) : null));
    steps.append(li);
    renumber();
  };
  const more = h("button", { class: "btn", type: "button", text: "Add a step", onclick: () => addStep(goals[Math.min(steps.children.length, goals.length - 1)].id) });
  const form = new Form({ class: "stack", id: "new-funnel" }, [
    field("name", "Name", name),
    h("div", { class: "field", "data-field": "steps" }, h("span", { class: "label", text: "Steps, in order" }), steps, more,
      h("p", { class: "field-error", id: "funnel-steps-error", role: "alert", hidden: true })),
    h("button", { class: "btn primary", type: "submit", text: "Add the funnel" }),
  ], () => {
    const n = name.value.trim();
    const fid = slug(n) || "funnel";
    if (fs.some((f) => f.id === fid)) throw new ApiError(0, `There is a funnel named ${n || fid}: pick another name, or delete that funnel first.`, "", "name");
    return api.putFunnel(site.id, { id: fid, name: n, steps: [...steps.querySelectorAll("select")].map((s) => s.value) });
  }, reload);
  addStep(goals[0].id);
  addStep(goals[1].id);
  box.replaceChildren(box.firstChild, shown, h("h3", { text: "Add a funnel" }), form.el);
}

async function linksPanel(box, api, site) {
  const reload = () => linksPanel(box, api, site);
  let ls;
  try {
    ls = await api.sharedLinks(site.id);
  } catch (e) {
    box.replaceChildren(box.firstChild, errorNotice(e, reload));
    return;
  }
  const made = h("div", { id: "new-link", "aria-live": "polite" });
  const name = h("input", { id: "link-name", class: "plain", autocomplete: "off", placeholder: "Team wiki" });
  const form = new Form({ class: "stack" }, [
    field("name", "Name", name, "Whoever has the link reads this site's dashboard, without a token, until you delete it."),
    h("button", { class: "btn primary", type: "submit", text: "Make a shared link" }),
  ], () => api.createSharedLink(site.id, name.value.trim()), async (l) => {
    await reload();
    const url = location.origin + l.url;
    document.getElementById("new-link").replaceChildren(h("div", { class: "notice" },
      h("p", { text: "The link, shown this once:" }), h("pre", { class: "snippet", id: "link-url", text: url }),
      h("button", { class: "btn", type: "button", text: "Copy the link", onclick: () => navigator.clipboard.writeText(url).catch(() => getSelection().selectAllChildren(document.getElementById("link-url"))) })));
  });
  box.replaceChildren(box.firstChild,
    ls.length
      ? list(ls, (l) => [l.name || l.id, "made " + String(l.created_at || "").slice(0, 10)], async (l) => { await api.deleteSharedLink(site.id, l.id); await reload(); }, "shared link")
      : h("p", { class: "empty", text: "No shared links." }),
    made, form.el);
}

function deletePanel(api, site, nav) {
  const confirmID = h("input", { id: "delete-confirm", class: "plain", autocomplete: "off", spellcheck: "false" });
  const form = new Form({ class: "stack" }, [
    field("confirm", `Type the site's id, ${site.id}, to delete it with all its data`, confirmID),
    h("button", { class: "btn danger", type: "submit", text: "Delete the site" }),
  ], async () => {
    if (confirmID.value.trim() !== site.id) throw new ApiError(0, `Type ${site.id} to confirm.`, "", "confirm");
    await api.deleteSite(site.id);
  }, () => nav.sites());
  return h("section", { class: "card danger-zone", id: "settings-delete", "aria-labelledby": "settings-delete-title" },
    h("h2", { id: "settings-delete-title", text: "Delete the site" }), form.el);
}
