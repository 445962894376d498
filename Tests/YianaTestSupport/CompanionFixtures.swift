import Foundation

/// Companion files as the Yiana app writes them (lh/Yiana, March 2026): each of its models
/// with every property set, encoded as its `JSONEncoder` with `.prettyPrinted, .sortedKeys`
/// writes them (keys sorted, `" : "`, slashes escaped), by the names its coding keys give.
public enum CompanionFixtures {
    /// `DocumentAddressFile` (YianaExtraction's AddressSchema.swift), one page, enriched.
    public static func extraction(_ documentID: String, extractedAt: String = "2026-03-01T09:00:00Z", overrides: String = "") -> String {
        """
        {
          "document_id" : "\(documentID)",
          "enriched" : {
            "enriched_at" : "2026-03-01T09:05:00Z",
            "patient" : {
              "date_of_birth" : "01\\/01\\/1980",
              "document_count" : 3,
              "firstname" : "Jane",
              "full_name" : "Jane Smith",
              "source" : "clinic",
              "surname" : "Smith"
            },
            "practitioners" : [
              {
                "document_count" : 2,
                "name" : "Dr Brown",
                "practice" : "High Street Surgery",
                "type" : "gp"
              }
            ]
          },
          "extracted_at" : "\(extractedAt)",
          "overrides" : [\(overrides)],
          "page_count" : 2,
          "pages" : [
            {
              "address" : {
                "city" : "Leeds",
                "county" : "West Yorkshire",
                "line_1" : "1 Park Road",
                "line_2" : "Headingley",
                "postcode" : "LS6 1AA",
                "postcode_district" : "LS6",
                "postcode_valid" : true
              },
              "address_type" : "patient",
              "extraction" : {
                "confidence" : 0.92,
                "method" : "label"
              },
              "gp" : {
                "address" : "5 High Street",
                "name" : "Dr Brown",
                "nhs_candidates" : [
                  {
                    "address_line1" : "5 High Street",
                    "name" : "HIGH STREET SURGERY",
                    "ods_code" : "B86001",
                    "postcode" : "LS6 2BB",
                    "source" : "nhs",
                    "town" : "Leeds"
                  }
                ],
                "ods_code" : "B86001",
                "official_name" : "HIGH STREET SURGERY",
                "postcode" : "LS6 2BB",
                "practice" : "High Street Surgery"
              },
              "is_prime" : true,
              "page_number" : 1,
              "patient" : {
                "date_of_birth" : "01\\/01\\/1980",
                "full_name" : "Jane Smith",
                "mrn" : "A123456",
                "phones" : {
                  "home" : "0113 000 0000",
                  "mobile" : "07700 900000",
                  "work" : "0113 111 1111"
                }
              },
              "specialist_name" : "Dr Grey"
            }
          ],
          "schema_version" : 1
        }
        """
    }

    /// One `AddressOverrideEntry` with every property.
    public static func correction(page: Int, type: String = "patient", date: String, name: String = "Jane Smith", postcode: String = "LS6 1AA") -> String {
        """
        {
              "address" : {
                "city" : "Leeds",
                "line_1" : "1 Park Road",
                "postcode" : "\(postcode)"
              },
              "address_type" : "\(type)",
              "is_dismissed" : false,
              "is_prime" : true,
              "match_address_type" : "\(type)",
              "override_date" : "\(date)",
              "override_reason" : "manual",
              "page_number" : \(page),
              "patient" : {
                "full_name" : "\(name)"
              },
              "recipient_role" : "to",
              "specialist_name" : "Dr Grey"
            }
        """
    }

    /// `OverridesFile` holding `corrections` (each from ``correction(page:type:date:name:postcode:)``).
    public static func corrections(_ documentID: String, _ corrections: [String]) -> String {
        """
        {
          "document_id" : "\(documentID)",
          "overrides" : [
            \(corrections.joined(separator: ",\n    "))
          ],
          "schema_version" : 1
        }
        """
    }

    /// `LetterDraft` (LetterDraft.swift): recipients' `id` is not written (not a coding key).
    public static func draft(_ letterID: String, target: String, body: String = "Dear Dr Brown,", modified: String = "2026-03-02T10:00:00Z") -> String {
        """
        {
          "body" : "\(body)",
          "created" : "2026-03-02T09:00:00Z",
          "letter_id" : "\(letterID)",
          "modified" : "\(modified)",
          "patient" : {
            "address" : [
              "1 Park Road",
              "Leeds LS6 1AA"
            ],
            "dob" : "01\\/01\\/1980",
            "mrn" : "A123456",
            "name" : "Jane Smith",
            "phones" : [
              "07700 900000"
            ],
            "title" : "Mrs"
          },
          "recipients" : [
            {
              "address" : [
                "5 High Street"
              ],
              "name" : "Dr Brown",
              "practice" : "High Street Surgery",
              "role" : "to",
              "source" : "gp"
            }
          ],
          "render_request" : "2026-03-02T10:00:00Z",
          "status" : "render_requested",
          "yiana_target" : "\(target)"
        }
        """
    }

    /// `SenderConfig` (SenderConfig.swift), with a secretary.
    public static func sender(name: String = "Dr A Consultant", phone: String = "0113 222 2222") -> String {
        """
        {
          "address" : [
            "St James's Hospital",
            "Leeds LS9 7TF"
          ],
          "credentials" : "FRCS",
          "department" : "Ophthalmology",
          "email" : "a.consultant@example.org",
          "hospital" : "St James's",
          "name" : "\(name)",
          "phone" : "\(phone)",
          "role" : "Consultant",
          "secretary" : {
            "email" : "secretary@example.org",
            "name" : "Pat",
            "phone" : "0113 333 3333"
          }
        }
        """
    }

    /// One `SharedWorkListItem` (camelCase keys: the model has no coding keys).
    public static func workItem(_ id: String, surname: String, added: String, resolvedFilename: String? = nil) -> String {
        """
        {
              "added" : "\(added)",
              "age" : 46,
              "doctor" : "AB",
              "firstName" : "Jane",
              "gender" : "F",
              "id" : "\(id)",
              "mrn" : "\(id)",\(resolvedFilename.map { "\n      \"resolvedFilename\" : \"\($0)\"," } ?? "")
              "source" : "clinic_list",
              "surname" : "\(surname)"
            }
        """
    }

    /// `SharedWorkList` holding `items`.
    public static func workList(_ items: [String], modified: String = "2026-03-03T08:00:00Z") -> String {
        """
        {
          "items" : [
            \(items.joined(separator: ",\n    "))
          ],
          "modified" : "\(modified)"
        }
        """
    }

    /// `LegacyYianaWorkList` (WorkListEntry.swift).
    public static let legacyWorkList = """
        {
          "entries" : [
            {
              "added" : "2025-10-01T08:00:00Z",
              "id" : "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
              "resolvedFilename" : "Smith_Jane_010180",
              "searchText" : "Smith Jane",
              "source" : "yiale",
              "yialeMRN" : "A123456"
            }
          ],
          "modified" : "2025-10-01T08:00:00Z"
        }
        """

    /// Writes `text` at `path` below `root`, making its folders, as the app and sync programs
    /// write: through a temporary name, renamed into place.
    public static func write(_ text: String, _ path: String, in root: URL) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
