import Foundation
import YianaVersion

/// The API's description (`/api/openapi.json`), which the tests hold every answer to.
enum OpenAPIDocument {
    static let json = template.replacingOccurrences(of: "@VERSION@", with: YianaVersion.string)

    private static let template = #"""
    {
      "openapi": "3.1.0",
      "info": {"title": "yiana serve", "version": "@VERSION@",
               "description": "The JSON API of a Yiana library served by `yiana serve`."},
      "paths": {
        "/api/search": {
          "get": {
            "summary": "Search the library's documents, best first, each with its best matching pages and how many match.",
            "parameters": [
              {"name": "q", "in": "query", "required": false, "schema": {"type": "string", "maxLength": 500},
               "description": "Words as typed: all must occur; \"quoted words\" match as a phrase, inv* a prefix. Empty: no hits."},
              {"name": "tag", "in": "query", "required": false, "schema": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
               "style": "form", "explode": true, "description": "Only documents with every tag given (at most 20 different ones)."},
              {"name": "folder", "in": "query", "required": false, "schema": {"type": "string"},
               "description": "Only documents in this folder of the library, or below it."},
              {"name": "since", "in": "query", "required": false, "schema": {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}, {"type": "string", "maxLength": 0}]},
               "description": "Only documents created on or after this date (YYYY-MM-DD or ISO 8601; empty: any)."},
              {"name": "until", "in": "query", "required": false, "schema": {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}, {"type": "string", "maxLength": 0}]},
               "description": "Only documents created on or before this date (YYYY-MM-DD or ISO 8601; empty: any)."},
              {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 200},
               "description": "At most this many documents (default 20)."},
              {"name": "sort", "in": "query", "required": false, "schema": {"type": "string", "enum": ["", "relevance", "newest", "oldest", "title"]},
               "description": "relevance (the default: the best first), newest or oldest (by when the document last changed), or title (A to Z)."},
              {"name": "pages", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 500},
               "description": "The best matching pages given with each document, with snippets (default 3); matchingPages counts them all."},
              {"name": "path", "in": "query", "required": false, "schema": {"type": "string", "maxLength": 4096},
               "description": "Only this document (its path in the library, as a hit gives it): its matching pages, for \"more pages\"."},
              {"name": "exact", "in": "query", "required": false, "schema": {"type": "string", "enum": ["", "0", "1", "false", "true"]},
               "description": "1 or true: every word exactly as typed. Otherwise a word of 5 to 8 letters also finds words one edit away, of 9 or more two (OCR's misreadings, rn for m, one edit); such hits come after every exact one, with approximate telling what they matched."}
            ],
            "responses": {
              "200": {"description": "The hits.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchAnswer"}}}},
              "400": {"description": "A parameter is wrong; the message names it.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "503": {"description": "The library has no search index yet (`yiana index`).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
          }
        },
        "/api/hits": {
          "get": {
            "summary": "Where the words of a query are on a page: boxes in fractions of the page, from its top-left corner.",
            "parameters": [
              {"name": "path", "in": "query", "required": true, "schema": {"type": "string"}, "example": "Bank statement reminder.yianazip",
               "description": "The document, relative to the library (as search gives it)."},
              {"name": "n", "in": "query", "required": true, "schema": {"type": "integer", "minimum": 1, "maximum": 2147483647}, "example": 1, "description": "The page, from 1."},
              {"name": "q", "in": "query", "required": false, "schema": {"type": "string", "maxLength": 500}, "example": "statement", "description": "The query whose words are boxed."}
            ],
            "responses": {
              "200": {"description": "The page's size in points and the boxes.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HitPage"}}}},
              "400": {"description": "A parameter is wrong.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "404": {"description": "No such document or page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "422": {"description": "The document cannot be read.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
          }
        },
        "/api/health": {
          "get": {
            "summary": "The library's health: documents, and the documents in each state with what to run.",
            "responses": {
              "200": {"description": "The summary `yiana status` prints.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}}
            }
          }
        },
        "/api/libraries": {
          "get": {
            "summary": "The libraries this server serves: one at /, or several, each under /NAME/ (its own /NAME/api/… as here).",
            "responses": {
              "200": {"description": "The libraries.", "content": {"application/json": {"schema": {"type": "array",
                "items": {"type": "object", "required": ["name", "path", "folder"], "additionalProperties": false,
                          "properties": {"name": {"type": "string"}, "path": {"type": "string"}, "folder": {"type": "string"}}}}}}}
            }
          }
        },
        "/api/jobs": {
          "get": {
            "summary": "The job the pages started (recognise, find the people, index, download, repair, put temporary files away) that runs now, or the last one: an empty list when none ran since the server started.",
            "responses": {
              "200": {"description": "The job, if any.", "content": {"application/json": {"schema": {"type": "array", "maxItems": 1, "items": {"$ref": "#/components/schemas/Job"}}}}}
            }
          }
        },
        "/api/openapi.json": {
          "get": {"summary": "This document.", "responses": {"200": {"description": "The OpenAPI document.", "content": {"application/json": {"schema": {"type": "object"}}}}}}
        }
      },
      "components": {
        "schemas": {
          "Error": {"type": "object", "required": ["error"],
                    "properties": {"error": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}}},
          "SearchAnswer": {"type": "object", "required": ["query", "hits"], "additionalProperties": false,
            "properties": {
              "query": {"type": "string"},
              "hits": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}},
              "stale": {"type": "object", "required": ["documents", "folders"], "additionalProperties": false,
                        "description": "Changes in the library the index has not seen (absent when none).",
                        "properties": {"documents": {"type": "integer"}, "folders": {"type": "integer"}}}
            }},
          "Hit": {"type": "object", "required": ["path", "title", "tags", "status", "score", "pages", "matchingPages", "approximate"], "additionalProperties": false,
            "properties": {
              "path": {"type": "string"}, "title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
              "created": {"type": "string", "format": "date-time"}, "status": {"type": "string"}, "score": {"type": "number"},
              "pages": {"type": "array", "items": {"type": "object", "required": ["number", "snippet", "score", "source"], "additionalProperties": false,
                "properties": {"number": {"type": "integer"}, "snippet": {"type": "string", "description": "Matched words marked with **."},
                               "score": {"type": "number"}, "source": {"type": "string", "enum": ["pdf", "ocr", "none", "addresses"]}}}},
              "matchingPages": {"type": "integer", "minimum": 0, "description": "How many pages match by their own text, those given and the others."},
              "approximate": {"type": "array", "description": "The words of the query this document matched only approximately (empty: it matched every word as typed), each with the words it matched, folded, nearest first.",
                "items": {"type": "object", "required": ["word", "matches"], "additionalProperties": false,
                          "properties": {"word": {"type": "string"}, "matches": {"type": "array", "items": {"type": "string"}, "minItems": 1}}}}
            }},
          "HitPage": {"type": "object", "required": ["page", "width", "height", "boxes"], "additionalProperties": false,
            "properties": {"page": {"type": "integer"}, "width": {"type": "number"}, "height": {"type": "number"},
                           "boxes": {"type": "array", "items": {"type": "object", "required": ["x", "y", "width", "height"], "additionalProperties": false,
                             "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "width": {"type": "number"}, "height": {"type": "number"}}}}}},
          "Job": {"type": "object", "required": ["kind", "label", "state", "done", "total", "message", "command", "details", "serial"], "additionalProperties": false,
            "properties": {
              "kind": {"type": "string", "enum": ["ocr", "ocr-retry", "extract", "index", "download", "repair", "remove-temps"]},
              "label": {"type": "string"}, "state": {"type": "string", "enum": ["running", "done", "failed", "cancelled"]},
              "done": {"type": "integer", "minimum": 0}, "total": {"type": "integer", "minimum": 0}, "message": {"type": "string"},
              "command": {"type": "string", "description": "The command that does the same from a terminal."},
              "path": {"type": "string", "description": "The document it was started for, when one."},
              "details": {"type": "array", "items": {"type": "string"}, "description": "What it did to each document, once it ended (at most 200 lines)."},
              "serial": {"type": "integer", "description": "Counts up with every change of the status."}}},
          "Health": {"type": "object", "required": ["version", "library", "documents", "fine", "states", "watcherRunning", "seconds", "read"],
            "properties": {
              "version": {"type": "string", "description": "The version of the yiana that answers (`yiana --version`)."},
              "library": {"type": "string"}, "documents": {"type": "integer"}, "fine": {"type": "integer"},
              "states": {"type": "array", "items": {"type": "object", "required": ["state", "count", "meaning", "run", "paths"], "additionalProperties": false,
                "properties": {"state": {"type": "string"}, "count": {"type": "integer"}, "meaning": {"type": "string"}, "run": {"type": "string"},
                               "paths": {"type": "array", "items": {"type": "string"}}}}},
              "index": {"type": "object", "required": ["path", "documents"],
                        "properties": {"path": {"type": "string"}, "documents": {"type": "integer"}, "lastRun": {"type": "string", "format": "date-time"}}},
              "watcher": {"type": "object"}, "watcherRunning": {"type": "boolean"}, "seconds": {"type": "number"}, "read": {"type": "string"},
              "keeper": {"type": "object", "description": "Where this machine keeps every document state it saw, how, the documents lost that it can bring back, and the mass-loss alarm while it is raised.",
                         "required": ["folder", "mode", "reason", "states", "documents", "lost"], "additionalProperties": false,
                         "properties": {"folder": {"type": "string"}, "mode": {"type": "string", "enum": ["link", "reflink", "copy"]}, "reason": {"type": "string"},
                                        "states": {"type": "integer"}, "documents": {"type": "integer"}, "lost": {"type": "integer"},
                                        "lastLook": {"type": "string", "format": "date-time"},
                                        "alarm": {"type": "object", "required": ["raisedAt", "since", "lost", "documents", "paths"], "additionalProperties": false,
                                                  "properties": {"raisedAt": {"type": "string", "format": "date-time"}, "since": {"type": "string", "format": "date-time"},
                                                                 "lost": {"type": "integer"}, "documents": {"type": "integer"},
                                                                 "paths": {"type": "array", "items": {"type": "string"}}}},
                                        "backup": {"type": "object", "description": "The last backup of the library from this machine (`yiana backup`) and the last failure after it.",
                                                   "additionalProperties": false,
                                                   "properties": {"lastSuccess": {"type": "object", "required": ["at", "snapshot", "repository", "incomplete"], "additionalProperties": false,
                                                                                  "properties": {"at": {"type": "string", "format": "date-time"}, "snapshot": {"type": "string"},
                                                                                                 "repository": {"type": "string"}, "incomplete": {"type": "boolean"}}},
                                                                  "lastFailure": {"type": "object", "required": ["at", "repository", "error"], "additionalProperties": false,
                                                                                  "properties": {"at": {"type": "string", "format": "date-time"}, "repository": {"type": "string"},
                                                                                                 "error": {"type": "string"}}}}}}},
              "notifications": {"type": "object", "description": "The last message sent to the library's person (`watch --notify`) and what waits to be delivered, and why.",
                                "required": ["waiting"], "additionalProperties": false,
                                "properties": {
                                  "lastSent": {"type": "object", "required": ["title", "incident", "at", "to", "notDelivered"], "additionalProperties": false,
                                               "properties": {"title": {"type": "string"}, "incident": {"type": "string"}, "at": {"type": "string", "format": "date-time"},
                                                              "to": {"type": "array", "items": {"type": "string"}},
                                                              "notDelivered": {"type": "object", "additionalProperties": {"type": "string"}}}},
                                  "waiting": {"type": "array", "items": {"type": "object", "required": ["title", "to", "tries", "next"], "additionalProperties": false,
                                              "properties": {"title": {"type": "string"}, "to": {"type": "string"}, "tries": {"type": "integer"},
                                                             "next": {"type": "string", "format": "date-time"}, "lastError": {"type": "string"}}}},
                                  "heartbeat": {"type": "object", "description": "The last request to the outside monitor (`--heartbeat`).",
                                                "required": ["at", "to", "failing"], "additionalProperties": false,
                                                "properties": {"at": {"type": "string", "format": "date-time"}, "to": {"type": "string"},
                                                               "failing": {"type": "boolean"}, "error": {"type": "string"}}}}}
            }}
        }
      }
    }
    """#
}
