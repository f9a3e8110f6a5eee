import { storageContractSuite } from "@dealstream/core/testing"
import { citusStorageLayer } from "../support/citusDatabase.js"

storageContractSuite("postgres on Citus", citusStorageLayer, { oneLogPerCommit: true })
