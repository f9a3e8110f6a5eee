import { MemoryStorage } from "@dealstream/storage-memory"
import { staleSettingsSuite } from "./staleSettings.js"

staleSettingsSuite("memory storage", MemoryStorage.layer, 40)
