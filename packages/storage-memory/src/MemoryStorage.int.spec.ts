import { storageContractSuite } from "@dealstream/core/testing"
import { MemoryStorage } from "./index.js"

storageContractSuite("memory", MemoryStorage.layer)
