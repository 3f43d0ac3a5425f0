// Making elements, and forms whose fields show the API's messages.

// h makes an element: attrs sets properties (class, text, on*, aria-*,
// data-*, others as attributes); children are nodes or strings.
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "value") e.value = v;
    else if (k === "checked") e.checked = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

// errorNotice is the alert of a failed load, with a retry button when
// retry is given.
export function errorNotice(e, retry) {
  return h("div", { class: "notice error", role: "alert" },
    h("p", { text: "Could not load: " + (e && e.message ? e.message : String(e)) }),
    retry ? h("button", { class: "btn", type: "button", onclick: retry, text: "Try again" }) : null);
}

// field wraps control (an input, select or textarea with an id) with its
// label, an optional hint, and the place of its error message. name is
// the member of the API's JSON the control sends: an ApiError naming it
// is shown here (see Form).
export function field(name, label, control, hint) {
  const err = h("p", { class: "field-error", id: control.id + "-error", role: "alert", hidden: true });
  const hintEl = hint ? h("small", { class: "muted", id: control.id + "-hint", text: hint }) : null;
  control.setAttribute("aria-describedby", [hintEl && hintEl.id, err.id].filter(Boolean).join(" "));
  return h("div", { class: "field", "data-field": name }, h("label", { for: control.id, text: label }), control, hintEl, err);
}

// Form is a form that sends with the API: submit runs send(); an
// ApiError naming a field (ApiError.field) is shown next to that field
// and the field focused, another error above the button. onDone runs
// after a send that did not fail.
export class Form {
  constructor(attrs, children, send, onDone) {
    this.general = h("p", { class: "notice error", role: "alert", hidden: true });
    this.button = children.find((c) => c && c.type === "submit") || null;
    this.el = h("form", {
      novalidate: true,
      ...attrs,
      onsubmit: async (ev) => {
        ev.preventDefault();
        this.clear();
        if (this.button) this.button.disabled = true;
        try {
          const v = await send();
          if (onDone) await onDone(v);
        } catch (e) {
          this.show(e);
        } finally {
          if (this.button) this.button.disabled = false;
        }
      },
    }, children, this.general);
  }

  clear() {
    this.general.hidden = true;
    for (const f of this.el.querySelectorAll(".field")) {
      f.classList.remove("invalid");
      const err = f.querySelector(".field-error");
      if (err) {
        err.hidden = true;
        err.textContent = "";
      }
      f.querySelector("input, select, textarea")?.removeAttribute("aria-invalid");
    }
  }

  // show puts the message of e next to its field, else above the button.
  show(e) {
    const msg = e && e.message ? e.message : String(e);
    const f = e && e.field ? this.el.querySelector(`.field[data-field="${CSS.escape(e.field)}"]`) : null;
    if (!f) {
      this.general.textContent = msg;
      this.general.hidden = false;
      return;
    }
    f.classList.add("invalid");
    const err = f.querySelector(".field-error");
    err.textContent = msg;
    err.hidden = false;
    const control = f.querySelector("input, select, textarea");
    if (control) {
      control.setAttribute("aria-invalid", "true");
      control.focus();
    }
  }
}

// slug makes an id the API takes (a-z, 0-9, '.', '-', '_'; at most 64)
// from a name: "Sign up!" is "sign-up".
export function slug(s) {
  return String(s).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
}
