// What every view of the page uses: elements by id, elements built from parts (text always as text,
// never as markup: names and words are data), the API's answers and errors, and the browser's storage.
"use strict";

export const $ = (id) => document.getElementById(id);

// A new element: `props` sets its properties (className, type, href, ...), `data` its data-* attributes,
// `attrs` other attributes; children are elements or strings, which become text nodes.
export function el(tag, props = {}, ...children) {
  const {data = {}, attrs = {}, ...rest} = props;
  const element = Object.assign(document.createElement(tag), rest);
  for (const [key, value] of Object.entries(data)) element.dataset[key] = value;
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  element.append(...children.filter((child) => child !== null && child !== undefined));
  return element;
}

// The answer's data (and with `withText`, its text too); a refusal is an Error with the server's message,
// and its code and params where it has them (the page says those in its language: i18n.js showError).
export async function api(path, body, withText = false) {
  const options = body === undefined ? {} :
    {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, options);
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) {
    throw Object.assign(new Error(data.error || response.statusText),
                        {status: response.status, code: data.code, params: data.params});
  }
  return withText ? [data, text] : data;
}

export function fill(select, options, chosen) {
  select.replaceChildren(...options.map(([value, label]) => {
    const option = new Option(label, value);
    option.selected = value === chosen;
    return option;
  }));
}

// localStorage, which a browser may refuse (private windows, storage off): then nothing is kept.
export const stored = {
  get(key) {
    try {
      return JSON.parse(localStorage.getItem(key));
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch {
      // not kept: the page still works, it just forgets on reload
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(key);
    } catch {
      // as above
    }
  },
};

// The page's address, without reloading: what it shows now (a board, a room), so that a link copied from
// the address bar opens the same thing.
export function showInAddress(params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, value);
  }
  history.replaceState(null, "", `${location.pathname}?${query}`);
}

export function clock(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
