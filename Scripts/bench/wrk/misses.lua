-- Two words of 40, every ordered pair once (1,560), each wrk thread starting half-way from the
-- other's: more distinct queries than `yiana serve` keeps answers for (256), so none is kept.
-- BENCH_PATH is the path the query is appended to (`/api/search?limit=20&q=`).
local words = {"account", "balance", "invoice", "statement", "tax", "return", "annual", "report", "meeting", "minutes",
               "letter", "contract", "insurance", "policy", "claim", "receipt", "payment", "refund", "order", "delivery",
               "warranty", "service", "repair", "energy", "water", "council", "school", "medical", "appointment", "prescription",
               "bank", "loan", "mortgage", "salary", "pension", "travel", "ticket", "booking", "hotel", "flight"}
queries = {}
for a = 1, #words do for b = 1, #words do if a ~= b then queries[#queries + 1] = words[a] .. " " .. words[b] end end end
local threads = 0
function setup(thread) thread:set("offset", threads * 780); threads = threads + 1 end
local i = nil
request = function()
  i = (i or offset or 0) % #queries + 1
  return wrk.format("GET", os.getenv("BENCH_PATH") .. queries[i]:gsub(" ", "%%20"))
end
