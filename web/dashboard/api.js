// The dashboard's client of the server's HTTP API: the sites routes,
// the Stats API (POST /api/v2/query, Plausible's v2 shape), funnels and
// realtime. Every request goes to the page's own origin.

// ApiError is a failed request: the HTTP status, the server's message
// and, for a value it refused, the member of the request's JSON at fault
// (field: "id", "domains", "time_zone", "kind", "match", "steps", ...).
export class ApiError extends Error {
  constructor(status, message, code, field) {
    super(message);
    this.status = status;
    this.code = code || "";
    this.field = field || "";
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
      throw new ApiError(resp.status, msg, data && data.error, data && data.field);
    }
    return data;
  }

  // sites returns the sites the caller may read, as an array.
  async sites() {
    return (await this.siteList()).sites;
  }

  // siteList returns the sites the caller may read and whether it may
  // create sites: {sites, canCreate}.
  async siteList() {
    const d = await this.request("GET", "/api/v1/sites");
    return { sites: listOf(d, "sites").map(normalSite), canCreate: !!(d && d.can_create) };
  }

  async site(id) {
    const d = await this.request("GET", sitePath(id));
    return normalSite(d && d.site ? d.site : d);
  }

  // createSite and updateSite send a site's settings: {id, name, domains,
  // time_zone, public}.
  async createSite(s) {
    return normalSite(await this.request("POST", "/api/v1/sites", s));
  }

  async updateSite(id, s) {
    return normalSite(await this.request("PUT", sitePath(id), s));
  }

  async deleteSite(id) {
    return this.request("DELETE", sitePath(id));
  }

  async goals(site) {
    return listOf(await this.request("GET", sitePath(site, "goals")), "goals");
  }

  // putGoal creates or replaces a goal: {id, name, kind, match}.
  async putGoal(site, g) {
    return this.request("POST", sitePath(site, "goals"), g);
  }

  async deleteGoal(site, id) {
    return this.request("DELETE", sitePath(site, "goals", id));
  }

  async funnels(site) {
    return listOf(await this.request("GET", sitePath(site, "funnels")), "funnels");
  }

  // putFunnel creates or replaces a funnel: {id, name, steps: [goal ids]}.
  async putFunnel(site, f) {
    return this.request("POST", sitePath(site, "funnels"), f);
  }

  async deleteFunnel(site, id) {
    return this.request("DELETE", sitePath(site, "funnels", id));
  }

  async sharedLinks(site) {
    return listOf(await this.request("GET", sitePath(site, "shared-links")), "shared_links");
  }

  // createSharedLink returns the new link with its url, shown once.
  async createSharedLink(site, name) {
    return this.request("POST", sitePath(site, "shared-links"), { name });
  }

  async deleteSharedLink(site, id) {
    return this.request("DELETE", sitePath(site, "shared-links", id));
  }

  // properties returns the names of the custom-event properties over
  // dateRange, most used first: [{name, events}].
  async properties(site, dateRange) {
    const q = new URLSearchParams({ date_range: Array.isArray(dateRange) ? dateRange.join(",") : dateRange });
    return listOf(await this.request("GET", sitePath(site, "properties") + "?" + q), "properties");
  }

  // funnel returns a funnel's steps over dateRange (a preset or a pair of
  // dates).
  async funnel(site, id, dateRange) {
    const q = new URLSearchParams({ date_range: Array.isArray(dateRange) ? dateRange.join(",") : dateRange });
    return this.request("GET", sitePath(site, "funnels", id, "steps") + "?" + q);
  }

  async realtime(site) {
    return this.request("GET", sitePath(site, "realtime"));
  }

  // query sends a Stats API v2 query.
  async query(body) {
    return this.request("POST", "/api/v2/query", body);
  }
}

// sitePath returns the path of a site's route: /api/v1/sites/SITE/PARTS...,
// each part escaped.
function sitePath(site, ...parts) {
  return ["/api/v1/sites", site, ...parts].map((p, i) => (i ? encodeURIComponent(p) : p)).join("/");
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
    canManage: !!s.can_manage,
  };
}
