"""CI — Civil Court (J1 level III): the judge presides over both parties' lawyers and gives judgment."""
