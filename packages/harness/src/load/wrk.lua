-- wrk script for the harness: sets the request from the environment and prints a JSON
-- summary to stderr when wrk finishes (wrk's text report stays on stdout).
-- No response() function unless statuses must be counted: one makes wrk slower on every request.
--
--   BENCH_METHOD        request method (default GET)
--   BENCH_CONTENT_TYPE  Content-Type header, when there is a body
--   BENCH_BODY_FILE     file holding the request body
--   BENCH_CONNECTIONS   the -c value wrk was given (needed to undo its latency correction)
--   BENCH_HEADERS       more request headers, one "Name: value" per line
--   BENCH_COUNT_STATUSES  1: count answers per status (printed as "statuses")
--
-- Why the histogram is read through the FFI: wrk 4.x runs stats_correct() on its latency
-- histogram before done() is called. For every latency above 2 × (runtime / (requests per
-- connection)) it adds synthetic samples (coordinated-omission correction), so the
-- percentiles, mean and stdev that done() is given are not those of the requests that were
-- sent, and they make the run look as if more requests were in flight than there were
-- connections. The correction is deterministic, so it can be undone exactly: buckets are
-- walked from the top down, and each bucket's synthetic share is the sum of the real counts
-- e, 2e, 3e ... above it. The stats struct below is wrk's (src/stats.h, unchanged since
-- 4.0); its min and max are checked against what wrk itself reports before it is trusted.

local ffi = require("ffi")
ffi.cdef[[
typedef struct { uint64_t count; uint64_t limit; uint64_t min; uint64_t max; uint64_t data[]; } bench_wrk_stats;
]]

local method = os.getenv("BENCH_METHOD")
if method and method ~= "" then wrk.method = method end

local content_type = os.getenv("BENCH_CONTENT_TYPE")
if content_type and content_type ~= "" then wrk.headers["Content-Type"] = content_type end

-- BENCH_HEADERS: the scenario's own request headers, one "Name: value" per line.
local extra_headers = os.getenv("BENCH_HEADERS")
if extra_headers and extra_headers ~= "" then
  for line in extra_headers:gmatch("[^\n]+") do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    if name then wrk.headers[name] = value end
  end
end

-- BENCH_COUNT_STATUSES=1: count answers per status. wrk itself only counts statuses above 399
-- (as errors), which cannot tell a 304 from a 200 or a 429 from a 500. A response() function
-- costs wrk time on every request, so it exists only for scenarios that need it. Each thread
-- counts in its own Lua state; done() adds them up through the threads setup() was given.
local threads = {}
if os.getenv("BENCH_COUNT_STATUSES") == "1" then
  statuses = {}
  function setup(thread) table.insert(threads, thread) end
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
  end
end

-- The per-status counts as JSON, or null when they were not counted.
local function statuses_json()
  if #threads == 0 then return "null" end
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses") or {}) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do
    table.insert(parts, string.format('"%d":%d', status, count))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local body_file = os.getenv("BENCH_BODY_FILE")
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
end

-- The interval wrk's stats_correct() used (integer arithmetic, as in wrk.c), or nil.
local function correction_interval(summary)
  local connections = tonumber(os.getenv("BENCH_CONNECTIONS") or "")
  if not connections or connections < 1 then return nil end
  local per_connection = math.floor(summary.requests / connections)
  if per_connection == 0 then return nil end
  return math.floor(summary.duration / per_connection)
end

-- Undoes stats_correct() in place; returns the histogram's real sample count, or nil and why.
local function uncorrect(s, e)
  local min, max = tonumber(s.min), tonumber(s.max)
  local total = 0
  if e and e > 0 and max > e then
    local acc = ffi.new("double[?]", e) -- real counts above, per residue class mod e
    for n = max, e + 1, -1 do
      local r = n % e
      local real = tonumber(s.data[n]) - acc[r]
      if real < 0 then return nil, "negative bucket " .. n end
      s.data[n] = real
      acc[r] = acc[r] + real
    end
  end
  for n = min, max do total = total + tonumber(s.data[n]) end
  return total
end

local function raw_stats(s, total)
  local min, max = tonumber(s.min), tonumber(s.max)
  local sum, sumsq = 0, 0
  for n = min, max do
    local c = tonumber(s.data[n])
    if c > 0 then sum = sum + c * n; sumsq = sumsq + c * n * n end
  end
  local mean = sum / total
  local variance = total > 1 and (sumsq - total * mean * mean) / (total - 1) or 0
  -- Percentile ranks as wrk computes them: round(p / 100 * count + 0.5).
  local wanted = { 50, 90, 99, 99.9 }
  local ranks, values, seen, k = {}, {}, 0, 1
  for i, p in ipairs(wanted) do ranks[i] = math.floor(p / 100 * total + 0.5 + 0.5) end
  for n = min, max do
    seen = seen + tonumber(s.data[n])
    while k <= #wanted and seen >= ranks[k] do values[k] = n; k = k + 1 end
    if k > #wanted then break end
  end
  return {
    mean = mean, stdev = math.sqrt(math.max(0, variance)), min = min, max = max,
    p50 = values[1] or max, p90 = values[2] or max, p99 = values[3] or max, p999 = values[4] or max,
  }
end

function done(summary, latency, requests)
  local e = summary.errors
  local s = ffi.cast("bench_wrk_stats **", latency)[0]
  local raw, problem = nil, nil
  local corrected_count = tonumber(s.count)
  if tonumber(s.min) ~= latency.min or tonumber(s.max) ~= latency.max then
    problem = "wrk's latency histogram does not have the expected layout"
  elseif summary.requests > 0 and corrected_count > 0 then
    local total
    total, problem = uncorrect(s, correction_interval(summary))
    if total and total > 0 then raw = raw_stats(s, total); raw.count = total end
  end
  local latency_json = "null"
  if raw then
    latency_json = string.format(
      '{"count":%d,"min":%d,"max":%d,"mean":%.3f,"stdev":%.3f,"p50":%d,"p90":%d,"p99":%d,"p999":%d}',
      raw.count, raw.min, raw.max, raw.mean, raw.stdev, raw.p50, raw.p90, raw.p99, raw.p999)
  end
  io.stderr:write(string.format(
    '{"wrkJson":2,"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"corrected_count":%d,"latency_problem":%s,"latency_us":%s,"statuses":%s}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    corrected_count, problem and string.format("%q", problem) or "null", latency_json,
    statuses_json()))
end
