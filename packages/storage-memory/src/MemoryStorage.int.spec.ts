import { deliveryQueueContractSuite, sameHost, storageContractSuite } from "@dealstream/core/testing"
import { Layer } from "effect"
import { MemoryStorage } from "./index.js"

storageContractSuite("memory", MemoryStorage.layer)
deliveryQueueContractSuite("memory", sameHost.pipe(Layer.provideMerge(MemoryStorage.layer)))
