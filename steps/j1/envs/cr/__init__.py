"""CR — Criminal Court (J1 level III): the judge tries the defendant with the defence and the procurator."""
