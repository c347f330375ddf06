"""LC — Legal Consultation (J1 level I): a party to an incident consults a lawyer who may ask questions."""
