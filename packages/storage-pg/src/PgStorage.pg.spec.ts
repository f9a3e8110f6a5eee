import { storageContractSuite } from "@dealstream/core/testing"
import { pgStorageLayer } from "../../../test/support/pg.js"

storageContractSuite("postgres", pgStorageLayer)
