import { pgStorageLayer } from "../support/pg.js"
import { staleSettingsSuite } from "./staleSettings.js"

staleSettingsSuite("PostgreSQL database", pgStorageLayer, 25)
