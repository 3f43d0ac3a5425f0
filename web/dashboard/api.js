// The dashboard's client of the server's HTTP API: the sites routes,
// the Stats API (POST /api/v2/query, Plausible's v2 shape), funnels and
// realtime. Every request goes to the page's own origin.

// ApiError is a failed request: the HTTP status and the server's message.
export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code || "";
  }
}

export class API {
  // token: the bearer token ("" for none); share: a shared link's slug
  // ("" for none), sent as X-Timetable-Share.
  constructor({ token = "", share = "" } = {}) {
    this.token = token;
    this.share = share;
  }

  async request(method, path, body) {
    const headers = { Accept: "application/json" };
    if (this.token) headers.Authorization = "Bearer " + this.token;
    if (this.share) headers["X-Timetable-Share"] = this.share;
    const init = { method, headers, credentials: "omit", cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, "The server did not answer (" + e.message + ").");
    }
    const text = await resp.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        if (resp.ok) throw new ApiError(resp.status, "The server's answer is not JSON.");
      }
    }
    if (!resp.ok) {
      const msg = (data && (data.message || data.error)) || resp.statusText || "request failed";
      throw new ApiError(resp.status, msg, data && data.error);
    }
    return data;
  }

  // sites returns the sites the caller may read, as an array.
  async sites() {
    const d = await this.request("GET", "/api/v1/sites");
    return listOf(d, "sites").map(normalSite);
  }

  async site(id) {
    const d = await this.request("GET", "/api/v1/sites/" + encodeURIComponent(id));
    return normalSite(d && d.site ? d.site : d);
  }

  async goals(site) {
    return listOf(await this.request("GET", "/api/v1/sites/" + encodeURIComponent(site) + "/goals"), "goals");
  }

  async funnels(site) {
    return listOf(await this.request("GET", "/api/v1/sites/" + encodeURIComponent(site) + "/funnels"), "funnels");
  }

  // funnel returns a funnel's steps over dateRange (a preset or a pair of
  // dates).
  async funnel(site, id, dateRange) {
    const q = new URLSearchParams({ date_range: Array.isArray(dateRange) ? dateRange.join(",") : dateRange });
    return this.request("GET", "/api/v1/sites/" + encodeURIComponent(site) + "/funnels/" + encodeURIComponent(id) + "/steps?" + q);
  }

  async realtime(site) {
    return this.request("GET", "/api/v1/sites/" + encodeURIComponent(site) + "/realtime");
  }

  // query sends a Stats API v2 query.
  async query(body) {
    return this.request("POST", "/api/v2/query", body);
  }
}

// listOf accepts an array or an object holding one under key.
function listOf(d, key) {
  if (Array.isArray(d)) return d;
  if (d && Array.isArray(d[key])) return d[key];
  if (d && Array.isArray(d.items)) return d.items;
  return [];
}

function normalSite(s) {
  s = s || {};
  return {
    id: s.id || s.site_id || s.ID || "",
    name: s.name || s.Name || "",
    domains: s.domains || s.Domains || (s.domain ? [s.domain] : []),
    timeZone: s.time_zone || s.timezone || s.TimeZone || "",
    public: !!s.public,
  };
}
